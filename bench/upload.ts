/**
 * bench/upload: a large build (500 MB by default, BENCH_MB to change) through the real POST /builds
 * endpoint of a relay running as `npm start` runs it, BENCH_ROUNDS (3) times, medians printed, against
 * two baselines measured in the same run on the same disk (the relay's data folder):
 *   - `cp` of the same file (the disk's own speed for these bytes);
 *   - nginx (Debian's, `dav_methods PUT`) receiving the same request body over HTTP from the same
 *     client and writing it to disk: what a server written for moving bytes does with the request.
 *     Skipped, saying so, when no nginx binary is found (BENCH_NGINX=/path to name one).
 * and the relay's peak RSS (VmHWM on Linux, sampled `ps` elsewhere), and each server's and the
 * client's CPU time per upload. Each round starts with a different step, each step after `sync`,
 * and each step's output is removed once timed. BENCH_PROFILE=<dir> writes a CPU profile of the relay.
 * BENCH_STRACE=<dir> counts each server's system calls during each of its uploads (`strace -c` on
 * every thread, <dir>/<server>-<round>.txt): slower while attached, so its times are not the figures.
 * Targets: ≤ 1.15 × cp; ≤ 1.05 × nginx; peak RSS < 150 MB whatever the size.
 * Run: npm run bench:upload   (not part of npm test)
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadFile, writeBigApk } from './support/big-upload';
import { buildRelay, cpuMs, freePort, issuePat, median, peakRssKb, startRelay, stopChild } from './support/relay';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_MB ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NGINX = process.env.BENCH_NGINX ?? ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/opt/homebrew/bin/nginx'].find((p) => existsSync(p));

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const dataDir = join(work, 'data');
  const buildPath = join(work, 'big.apk');
  let relay: ChildProcess | null = null;
  let nginx: ChildProcess | null = null;
  try {
    process.stdout.write(`Writing a ${SIZE_MB} MB APK… `);
    await writeBigApk(buildPath, SIZE_MB * MB);
    const bytes = statSync(buildPath).size;
    process.stdout.write('done\n');

    buildRelay();
    const profile = process.env.BENCH_PROFILE;
    const running = await startRelay(
      dataDir,
      { SVC_LOG_LEVEL: 'warn', SVC_MAX_BUILD_BYTES: String(bytes + MB) },
      profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
    );
    relay = running.child;
    const pat = await issuePat(running.base);
    const nginxServer = NGINX ? await startNginx(NGINX, work, dataDir) : null;
    nginx = nginxServer?.child ?? null;
    if (!nginxServer) console.log('nginx: SKIPPED (no nginx binary found; apt-get install nginx, or BENCH_NGINX=/path/to/nginx)');

    const cpTimes: number[] = [];
    const nginxTimes: number[] = [];
    const relayTimes: number[] = [];
    const nginxCpu: number[] = [];
    const relayCpu: number[] = [];
    const relaySplit: CpuSplit[] = [];
    const nginxSplit: CpuSplit[] = [];
    const clientCpu: number[] = [];
    const rssBefore = peakRssKb(relay.pid!);
    const sampler = new RssSampler(relay.pid!);
    const steps: (() => Promise<void>)[] = [
      async () => {
        cpTimes.push(await seconds(async () => execFileSync('cp', [buildPath, join(dataDir, 'copy.bin')])));
        rmSync(join(dataDir, 'copy.bin'));
      },
      async () => {
        if (!nginxServer) return;
        const url = `http://127.0.0.1:${nginxServer.port}/put/bench.bin`;
        const cpu = cpuMs(nginxServer.child.pid!);
        const split = cpuSplit(nginxServer.child.pid!);
        const traced = await traceSyscalls(nginxServer.child.pid!, `nginx-${nginxTimes.length}`);
        nginxTimes.push(await seconds(() => expect(uploadFile(url, 'PUT', {}, buildPath, bytes), [201, 204])));
        await traced?.();
        nginxCpu.push(cpuMs(nginxServer.child.pid!) - cpu);
        nginxSplit.push(cpuSplit(nginxServer.child.pid!, split));
        rmSync(join(dataDir, 'nginx-root', 'put', 'bench.bin'));
      },
      async () => {
        const cpu = cpuMs(relay!.pid!);
        const split = cpuSplit(relay!.pid!);
        const client = process.cpuUsage();
        const traced = await traceSyscalls(relay!.pid!, `relay-${relayTimes.length}`);
        relayTimes.push(
          await seconds(() => expect(uploadFile(`${running.base}/builds`, 'POST', { Authorization: `Bearer ${pat}` }, buildPath, bytes), [201])),
        );
        await traced?.();
        relayCpu.push(cpuMs(relay!.pid!) - cpu);
        relaySplit.push(cpuSplit(relay!.pid!, split));
        const spent = process.cpuUsage(client);
        clientCpu.push((spent.user + spent.system) / 1000);
        // The stored file goes as cp's and nginx's outputs do (the build's row stays; the API has no
        // build deletion, and nothing reads it here).
        for (const name of readdirSync(join(dataDir, 'builds'))) rmSync(join(dataDir, 'builds', name));
      },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with a different step, and every step starts after `sync`: on this disk
      // (ext4, mounted with `discard`) the step after a 500 MB file's deletion or write-back paid
      // for it (a relay upload right after a cp and its removal: 1.3-2.1 s instead of 0.5-0.7 s).
      for (let i = 0; i < steps.length; i++) {
        execFileSync('sync');
        await steps[(round + i) % steps.length]();
      }
    }
    sampler.stop();
    const peakKb = Math.max(peakRssKb(relay.pid!) ?? 0, sampler.maxKb);

    const relaySeconds = median(relayTimes);
    const cpSeconds = median(cpTimes);
    const list = (times: number[]) => times.map((t) => t.toFixed(2)).join(', ');
    const rate = (s: number) => `${(bytes / MB / s).toFixed(0)} MB/s`;
    console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${(bytes / MB).toFixed(0)} MB, median of ${ROUNDS}`);
    console.log(`relay POST /builds: ${relaySeconds.toFixed(2)} s = ${rate(relaySeconds)} (${list(relayTimes)})`);
    console.log(`cp:                 ${cpSeconds.toFixed(2)} s = ${rate(cpSeconds)} (${list(cpTimes)})`);
    const vsCp = relaySeconds / cpSeconds;
    console.log(`relay / cp:    ${vsCp.toFixed(2)} (target ≤ 1.15) ${vsCp <= 1.15 ? 'OK' : 'MISS'}`);
    if (nginxServer) {
      const nginxSeconds = median(nginxTimes);
      console.log(`nginx PUT:          ${nginxSeconds.toFixed(2)} s = ${rate(nginxSeconds)} (${list(nginxTimes)})`);
      const vsNginx = relaySeconds / nginxSeconds;
      console.log(`relay / nginx: ${vsNginx.toFixed(2)} (target ≤ 1.05) ${vsNginx <= 1.05 ? 'OK' : 'MISS'}`);
    }
    // CPU time (user + system, all threads) per upload: what each server would need of a core of its own.
    const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
    console.log(
      `CPU per upload: relay ${ms(relayCpu)} (${relayCpu.join(', ')})` +
        (nginxServer ? `, nginx ${ms(nginxCpu)} (${nginxCpu.join(', ')})` : '') +
        `, the client (this process) ${ms(clientCpu)}`,
    );
    const splitLine = (name: string, splits: CpuSplit[]) =>
      `${name} ${ms(splits.map((x) => x.mainUser))} user + ${ms(splits.map((x) => x.mainSystem))} system on the main thread, ` +
      `${ms(splits.map((x) => x.otherUser))} user + ${ms(splits.map((x) => x.otherSystem))} system on the others`;
    console.log(`  split (medians): ${splitLine('relay', relaySplit)}` + (nginxServer ? `; ${splitLine('nginx', nginxSplit)}` : ''));
    console.log(
      `relay RSS: peak ${(peakKb / 1024).toFixed(0)} MB (before the uploads ${((rssBefore ?? 0) / 1024).toFixed(0)} MB; target < 150 MB) ${peakKb / 1024 < 150 ? 'OK' : 'MISS'}`,
    );
  } finally {
    if (relay) await stopChild(relay);
    if (nginx) await stopChild(nginx);
    rmSync(work, { recursive: true, force: true });
  }
}

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function expect(answer: Promise<{ code: number; body: string }>, codes: number[]): Promise<string> {
  const { code, body } = await answer;
  if (!codes.includes(code)) throw new Error(`answered ${code}: ${body.slice(0, 300)}`);
  return body;
}

/**
 * nginx in the foreground, one worker, writing PUT bodies into the relay's data folder (its
 * temporary body files there too, so the final rename stays on the same disk, as the relay's does).
 */
async function startNginx(binary: string, work: string, dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const root = join(dataDir, 'nginx-root');
  mkdirSync(join(root, 'put'), { recursive: true });
  mkdirSync(join(dataDir, 'nginx-body'), { recursive: true });
  const conf = join(work, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off; master_process off; worker_processes 1; pid ${join(work, 'nginx.pid')}; error_log ${join(work, 'nginx-error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${join(dataDir, 'nginx-body')};
  client_max_body_size 0;
  proxy_temp_path ${join(work, 'nginx-proxy')}; fastcgi_temp_path ${join(work, 'nginx-fastcgi')};
  uwsgi_temp_path ${join(work, 'nginx-uwsgi')}; scgi_temp_path ${join(work, 'nginx-scgi')};
  server { listen 127.0.0.1:${port}; location /put/ { root ${root}; dav_methods PUT; } }
}
`,
  );
  const child = spawn(binary, ['-c', conf, '-p', work], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return { child, port };
    if (child.exitCode !== null || attempt > 100) throw new Error(`nginx did not start (see ${join(work, 'nginx-error.log')})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU ms of a process split by thread (its main thread vs the rest: the relay's thread pool) and by user vs kernel time. */
interface CpuSplit {
  mainUser: number;
  mainSystem: number;
  otherUser: number;
  otherSystem: number;
}

/** The process's split now, or (with `since`) what it spent after `since` was taken. */
function cpuSplit(pid: number, since?: CpuSplit): CpuSplit {
  const ticks = (path: string) => {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  };
  const all = ticks(`/proc/${pid}/stat`);
  const main = ticks(`/proc/${pid}/task/${pid}/stat`);
  const now = { mainUser: main.user, mainSystem: main.system, otherUser: all.user - main.user, otherSystem: all.system - main.system };
  if (!since) return now;
  return {
    mainUser: now.mainUser - since.mainUser,
    mainSystem: now.mainSystem - since.mainSystem,
    otherUser: now.otherUser - since.otherUser,
    otherSystem: now.otherSystem - since.otherSystem,
  };
}

/**
 * With BENCH_STRACE=<dir>: `strace -c` attached to every thread of `pid` (the relay's thread pool
 * too) until the returned function is called, its table written to <dir>/<name>.txt.
 */
async function traceSyscalls(pid: number, name: string): Promise<(() => Promise<void>) | null> {
  const dir = process.env.BENCH_STRACE;
  if (!dir) return null;
  mkdirSync(dir, { recursive: true });
  const threads = readdirSync(`/proc/${pid}/task`).flatMap((tid) => ['-p', tid]);
  const strace = spawn('strace', ['-c', '-o', join(dir, `${name}.txt`), ...threads], { stdio: ['ignore', 'ignore', 'pipe'] });
  let attached = 0;
  await new Promise<void>((ready, fail) => {
    strace.stderr!.on('data', (text: Buffer) => {
      attached += (String(text).match(/attached/g) ?? []).length;
      if (attached >= threads.length / 2) ready();
    });
    strace.on('error', fail);
  });
  return async () => {
    const exited = new Promise((done) => strace.on('exit', done));
    strace.kill('SIGINT');
    await exited;
  };
}

/** Samples the child's current RSS every 100 ms (for systems without /proc). */
class RssSampler {
  maxKb = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(pid: number) {
    this.timer = setInterval(() => {
      try {
        const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (match) this.maxKb = Math.max(this.maxKb, Number(match[1]));
      } catch {
        const ps = spawn('ps', ['-o', 'rss=', '-p', String(pid)]);
        ps.stdout.on('data', (d) => (this.maxKb = Math.max(this.maxKb, Number(String(d).trim()) || 0)));
      }
    }, 100);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
