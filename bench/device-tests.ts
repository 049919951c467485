/**
 * bench/device-tests (issue 37 items 1 and 6): the WebDriver hub with Appium's fake driver.
 *   - parallel: BENCH_PARALLEL (8) WebdriverIO sessions at once on as many fake devices of one agent
 *     (`--fake-devices`), each New Session + LOOPS × (findElement + click) + Delete, against one
 *     such session alone: wall time of the eight ÷ wall time of one (target ≤ 1.3). The floor is
 *     the same pair of runs straight against the same Appium server, without the relay and agent.
 *   - hop: the findElement + click loop of one session through the relay (client → relay → agent's
 *     WebSocket → Appium) against the same loop straight to Appium: ratio, and ms added per command.
 * Every run is repeated ROUNDS (3) times, interleaved (relay 1, relay 8, direct 1, direct 8), medians
 * taken; the CPU time each process spent (relay, Appium, this process = the agent) is printed per
 * kind of run, to say where the time goes. The client runs in a child process (webdriverio is ESM).
 * Run: npm run bench:device-tests   (part of npm run bench; about a minute)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentDaemon } from '../src/agent-daemon/agent-daemon';
import { AppiumBridge } from '../src/agent-daemon/appium/appium-bridge';
import { startFakeAppium } from '../src/agent-daemon/appium/appium-server';
import { FakeAppModels } from '../src/agent-daemon/appium/fake-app-model';
import { FakeBackend } from '../src/agent-daemon/backends/fake-backend';
import { buildRelay, cpuMs, issuePats, median, startRelay } from './support/relay';

const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 8);
const LOOPS = Number(process.env.BENCH_LOOPS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const AGENT = 'bench-hub';
const CAPS = { platformName: 'Android', 'appium:automationName': 'UiAutomator2', 'appium:deviceName': 'Android Emulator', 'svc:queueTimeout': 60 };

interface Run {
  wallMs: number;
  sessions: { createMs: number; loopMs: number; deleteMs: number }[];
}

function client(url: string, token: string | null, capsList: object[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'support', 'wdio-sessions.mjs')], {
      env: { ...process.env, HUB_URL: url, HUB_TOKEN: token ?? '', HUB_CAPS_LIST: JSON.stringify(capsList), LOOPS: String(LOOPS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as Run);
      } catch {
        reject(new Error(`the WebdriverIO client exited with ${code} without a result: ${out.slice(-500)}`));
      }
    });
  });
}

const fixed = (ms: number) => ms.toFixed(0).padStart(6);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-hub-'));
  buildRelay();
  const relay = await startRelay(join(work, 'data'));
  const appium = await startFakeAppium();
  const models = new FakeAppModels();
  const backend = new FakeBackend(AGENT, { enabled: false }, PARALLEL);
  let agent: AgentDaemon | null = null;
  try {
    const [agentToken, devicesToken, viewToken] = await issuePats(relay.base, ['agent', 'devices', 'view']);
    agent = new AgentDaemon({
      relayUrl: relay.base.replace(/\/api\/v1$/, ''),
      token: agentToken,
      name: AGENT,
      backend,
      version: 'bench',
      log: () => undefined,
      appium: new AppiumBridge(appium.url, models),
    });
    agent.start();
    for (let seen = 0; seen < PARALLEL; ) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${relay.base}/devices`, { headers: { Authorization: `Bearer ${viewToken}` } });
      const { items } = (await res.json()) as { items: { platform: string; state: string; online?: boolean }[] };
      seen = items.filter((d) => d.platform === 'android' && d.state === 'booted').length;
    }
    const hub = `http://127.0.0.1:${relay.port}/wd/hub`;
    // Direct to Appium: the capabilities the agent would send for each device (same app model, same udid).
    const androids = (await backend.listDevices()).filter((d) => d.platform === 'android');
    const direct = await Promise.all(androids.map((d) => models.map(CAPS, d, undefined)));

    const kinds = {
      'relay, 1 session': () => client(hub, devicesToken, [CAPS]),
      [`relay, ${PARALLEL} sessions`]: () => client(hub, devicesToken, Array.from({ length: PARALLEL }, () => CAPS)),
      'direct, 1 session': () => client(appium.url, null, direct.slice(0, 1)),
      [`direct, ${PARALLEL} sessions`]: () => client(appium.url, null, direct.slice(0, PARALLEL)),
    };
    const runs = new Map<string, Run[]>(Object.keys(kinds).map((k) => [k, []]));
    const cpu = new Map<string, { relay: number; appium: number; agent: number }>(Object.keys(kinds).map((k) => [k, { relay: 0, appium: 0, agent: 0 }]));
    await client(hub, devicesToken, [CAPS]); // warm-up: the relay's and Appium's first session
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, run] of Object.entries(kinds)) {
        const before = { relay: cpuMs(relay.child.pid!), appium: cpuMs(appium.pid), agent: process.cpuUsage() };
        runs.get(kind)!.push(await run());
        const used = cpu.get(kind)!;
        used.relay += cpuMs(relay.child.pid!) - before.relay;
        used.appium += cpuMs(appium.pid) - before.appium;
        const agentCpu = process.cpuUsage(before.agent);
        used.agent += (agentCpu.user + agentCpu.system) / 1000;
      }
    }

    console.log(`WebDriver hub, fake driver: ${LOOPS} × (findElement + click) per session, ${ROUNDS} rounds, medians (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')})`);
    console.log('run                   wall ms  create ms  loop ms  delete ms | cpu ms per run: relay  appium  agent');
    const wall = new Map<string, number>();
    const loop = new Map<string, number>();
    for (const [kind, list] of runs) {
      const all = list.flatMap((r) => r.sessions);
      wall.set(kind, median(list.map((r) => r.wallMs)));
      loop.set(kind, median(all.map((s) => s.loopMs)));
      const used = cpu.get(kind)!;
      console.log(
        `${kind.padEnd(20)} ${fixed(wall.get(kind)!)}     ${fixed(median(all.map((s) => s.createMs)))}   ${fixed(loop.get(kind)!)}     ${fixed(median(all.map((s) => s.deleteMs)))} |` +
          `                ${fixed(used.relay / ROUNDS)} ${fixed(used.appium / ROUNDS)} ${fixed(used.agent / ROUNDS)}`,
      );
    }
    const parallel = wall.get(`relay, ${PARALLEL} sessions`)! / wall.get('relay, 1 session')!;
    const floor = wall.get(`direct, ${PARALLEL} sessions`)! / wall.get('direct, 1 session')!;
    const beyond = floor > 1.3;
    console.log(
      `${PARALLEL} parallel sessions ÷ 1 session through the relay: ratio ${parallel.toFixed(2)} (target <= 1.3) ${parallel <= 1.3 ? 'OK' : 'MISS'}` +
        `${parallel > 1.3 && beyond ? `  FLOOR: even straight to Appium it is past the target (<= 1.3): ratio ${floor.toFixed(2)}` : ''}`,
    );
    console.log(`floor: ${PARALLEL} parallel sessions ÷ 1 session straight to Appium: ${floor.toFixed(2)} ÷ 1`);
    const relayLoop = loop.get('relay, 1 session')!;
    const directLoop = loop.get('direct, 1 session')!;
    const addedPerCommand = (relayLoop - directLoop) / (2 * LOOPS);
    console.log(
      `WebDriver hop (findElement + click, one session): through the relay ÷ straight to Appium: ratio ${(relayLoop / directLoop).toFixed(2)}, ` +
        `${addedPerCommand.toFixed(1)} ms added per command (target < 5 ms) ${addedPerCommand < 5 ? 'OK' : 'MISS'}`,
    );
  } finally {
    await agent?.stop();
    await models.close();
    await appium.close();
    await relay.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
