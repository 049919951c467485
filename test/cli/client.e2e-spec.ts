import { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { simulatorBuild } from './build-fixtures';
import { CliResult, emptyDir, runCli, spawnCli, CLI_TEST_TIMEOUT_MS } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/**
 * The client commands (upload, builds, apps) against a real relay, as CI runs them: SVC_URL and a
 * PAT in SVC_TOKEN. Where the relay refuses, the CLI must exit 1 and print exactly the relay's
 * `error` message, so each refusal is compared with what the relay itself answers.
 */
describe('svc client commands', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let devPat: string;
  let viewerPat: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    devPat = await members.pat(await members.member('Developer'));
    viewerPat = await members.pat(await members.member('Viewer'));
  });
  afterAll(() => relay.close());

  const svc = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { SVC_URL: relay.url, SVC_TOKEN: devPat, ...env } });

  /** What the relay itself answers to the request a command makes. */
  async function relayAnswer(method: 'get' | 'post', path: string, token = devPat) {
    const res = await members.withPat(token, method, path);
    return { status: res.status, error: res.body?.error as string | undefined };
  }

  function expectRefusal(result: CliResult, error: string | undefined) {
    expect(error).toBeTruthy();
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc: ${error}\n`);
    expect(result.stdout).toBe('');
  }

  describe('usage (exit 2) and --help (exit 0)', () => {
    it('--help on every command shows usage and examples', async () => {
      const commands = [
        [], ['relay'], ['admin'], ['admin', 'init'], ['admin', 'reset-password'], ['backup'], ['restore'],
        ['upload'], ['builds'], ['builds', 'list'], ['builds', 'show'], ['builds', 'download'], ['apps'], ['apps', 'list'], ['results'], ['results', 'upload'],
      ];
      const results = await Promise.all(commands.map((c) => runCli([...c, '--help'])));
      results.forEach((result, i) => {
        expect({ command: commands[i], code: result.code }).toEqual({ command: commands[i], code: 0 });
        expect(result.stdout).toContain(`Usage: svc ${commands[i].join(' ')}`.trimEnd());
        expect(result.stdout).toMatch(/Examples:\n(?: {2}\$ .*\n)* {2}\$ svc /);
      });
    });

    it('a missing relay URL or token is a usage error naming the variable', async () => {
      const noUrl = await svc(['apps', 'list'], { SVC_URL: undefined });
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toContain('set SVC_URL or pass --url');
      const noToken = await svc(['builds', 'list'], { SVC_TOKEN: undefined });
      expect(noToken.code).toBe(2);
      expect(noToken.stderr).toContain('set SVC_TOKEN or pass --token');
      const badUrl = await svc(['apps', 'list'], { SVC_URL: 'relay.example.com' });
      expect(badUrl.code).toBe(2);
    });

    it('bad values, unknown commands and options exit 2 before anything is sent', async () => {
      const build = await simulatorBuild();
      for (const args of [
        ['upload', build.path, '--status', 'Approved'],
        ['upload', build.path, '--platform', 'windows'],
        ['upload', build.path, '--app-id', 'x'],
        ['upload', join(emptyDir(), 'missing.apk')],
        ['upload'],
        ['builds', 'list', '--limit', '500'],
        ['builds', 'list', '--sort', 'size'],
        ['builds', 'show', 'abc'],
        ['builds', 'frobnicate'],
        ['apps', 'list', '--colour'],
      ]) {
        const result = await svc(args, { SVC_URL: 'http://127.0.0.1:1' });
        expect({ args, code: result.code }).toEqual({ args, code: 2 });
        expect(result.stderr).not.toBe('');
      }
    });

    it('there is no status-changing command: the CLI says why (a verdict is a person\'s decision)', async () => {
      const result = await svc(['builds', 'set-status', '1', 'Done']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("A review verdict is a person's decision");
      expect(result.stderr).toContain('cannot change the status of an existing build');
    });
  });

  describe('refusals (exit 1, the relay\'s error on stderr)', () => {
    it('builds show/download of a missing build print exactly what the relay answered', async () => {
      const cases: Array<[string[], string]> = [
        [['builds', 'show', '987654'], '/api/v1/builds/987654'],
        [['builds', 'download', '987654', '-o', emptyDir()], '/api/v1/builds/987654/download'],
      ];
      for (const [args, path] of cases) {
        const answer = await relayAnswer('get', path);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expectRefusal(await svc(args), answer.error);
      }
    });

    it('apps list and builds list: the relay\'s answer, refusal or not', async () => {
      for (const [args, path] of [
        [['apps', 'list', '--json'], '/api/v1/apps'],
        [['builds', 'list', '--json'], '/api/v1/builds'],
      ] as Array<[string[], string]>) {
        const answer = await relayAnswer('get', path);
        const result = await svc(args);
        if (answer.status >= 400) expectRefusal(result, answer.error);
        else expect({ code: result.code, items: Array.isArray(JSON.parse(result.stdout).items) }).toEqual({ code: 0, items: true });
      }
    });

    it('an unknown or revoked token: the relay\'s refusal, exit 1, then what to do (ci-logs.e2e-spec.ts has the wording)', async () => {
      const bogus = 'svc_pat_' + 'x'.repeat(43);
      const answer = await relayAnswer('get', '/api/v1/builds', bogus);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      const result = await svc(['builds', 'list'], { SVC_TOKEN: bogus });
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(new RegExp(`^svc: ${answer.error}\nThe relay refused the token in SVC_TOKEN: .*\n$`));
    });

    it('upload refused by the relay (Viewer): exit 1 with its message', async () => {
      const build = await simulatorBuild();
      const answer = await relayAnswer('post', '/api/v1/builds', viewerPat);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expectRefusal(await svc(['upload', build.path], { SVC_TOKEN: viewerPat }), answer.error);
      expect(answer.error).toBe('Viewers have read-only access');
      const json = await svc(['upload', build.path, '--json'], { SVC_TOKEN: viewerPat });
      expect({ code: json.code, stdout: JSON.parse(json.stdout) }).toEqual({ code: 1, stdout: { error: answer.error, status: answer.status } });
    });

    it('a token without the scope a command needs: the relay\'s refusal, then the scope to ask for', async () => {
      const writeOnly = await members.pat(await members.member('Developer'), 'builds:write');
      const answer = await relayAnswer('get', '/api/v1/apps', writeOnly);
      expect(answer).toEqual({ status: 403, error: 'Insufficient scope' });
      const result = await svc(['apps', 'list'], { SVC_TOKEN: writeOnly });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'svc: Insufficient scope\nThis command needs a token with the `view` scope: create one in the dashboard (account menu → Access tokens).\n',
      );
      const viewOnly = await members.pat(await members.member('Developer'), 'view');
      expect((await svc(['builds', 'list'], { SVC_TOKEN: viewOnly })).stderr).toContain('needs a token with the `builds:write` scope');
    });

    it('an unreachable relay is exit 1 with a plain message', async () => {
      const result = await svc(['apps', 'list'], { SVC_URL: 'http://127.0.0.1:1' });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('svc: Cannot reach the relay at http://127.0.0.1:1: ECONNREFUSED\n');
    });

    it('--url and --token override SVC_URL and SVC_TOKEN', async () => {
      const answer = await relayAnswer('get', '/api/v1/apps');
      const result = await runCli(['apps', 'list', '--url', `${relay.url}/api/v1/`, '--token', devPat], {
        env: { SVC_URL: 'http://127.0.0.1:1', SVC_TOKEN: 'svc_pat_wrong' },
      });
      if (answer.status >= 400) expectRefusal(result, answer.error);
      else expect(result.code).toBe(0);
    });
  });

  describe('with the builds API', () => {
    it('upload --status --label --json prints one JSON line: the build summary, its label, provenance and page', async () => {
      const build = await simulatorBuild({ bundleId: 'com.example.cli', version: '2.0.1', buildNumber: '77' });
      const result = await svc(['upload', build.path, '--status', 'Backlog', '--label', 'feature/cli', '--no-ci', '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const summary = JSON.parse(lines[0]);
      expect(summary).toEqual({
        id: expect.any(Number),
        app_id: expect.any(Number),
        name: expect.any(String),
        version_name: '2.0.1',
        build_number: '77',
        bundle_id: 'com.example.cli',
        status_label: 'Backlog',
        platform: 'ios',
        uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        version_label: 'feature/cli',
        provenance: null,
        build_page_url: `${relay.url}/builds/${summary.id}`,
      });

      const list = await svc(['builds', 'list', '--status', 'Backlog', '--json']);
      expect(list.code).toBe(0);
      const page = JSON.parse(list.stdout);
      expect(page.total).toBeGreaterThanOrEqual(1);
      expect(page.items.find((b: { id: number }) => b.id === summary.id)).toMatchObject({ version_label: 'feature/cli', status_label: 'Backlog' });
      const none = JSON.parse((await svc(['builds', 'list', '--status', 'Rejected', '--json'])).stdout);
      expect(none.items.find((b: { id: number }) => b.id === summary.id)).toBeUndefined();

      const table = await svc(['builds', 'list']);
      expect(table.stdout).toMatch(/^ID\s+APP\s+NAME\s+VERSION\s+PLATFORM\s+STATUS\s+LABEL\s+SOURCE\s+UPLOADED\n/);
      expect(table.stdout).toContain('2.0.1 (77)');

      const shown = await svc(['builds', 'show', String(summary.id), '--json']);
      const { build_page_url: _page, ...stored } = summary;
      expect(JSON.parse(shown.stdout)).toMatchObject(stored);
      expect((await svc(['builds', 'show', String(summary.id)])).stdout).toMatch(/^bundle_id:\s+com\.example\.cli$/m);

      const dir = emptyDir();
      const saved = await svc(['builds', 'download', String(summary.id), '-o', `${dir}/`, '--json']);
      expect(saved.code).toBe(0);
      const { path, bytes } = JSON.parse(saved.stdout);
      expect(bytes).toBe(statSync(build.path).size);
      expect(readFileSync(path).equals(readFileSync(build.path))).toBe(true);

      const apps = JSON.parse((await svc(['apps', 'list', '--json'])).stdout);
      expect(apps.items.some((a: { bundle_id_key: string }) => a.bundle_id_key === 'com.example.cli')).toBe(true);
    });

    // Issue 40: a build uploaded with its branch, pull request and commit is found by each of them.
    it('builds list finds a build by branch, pull request and commit, and shows its source', async () => {
      const sha = '4f2a9c0d1e3b5a7c9e1f3a5b7c9d1e3f5a7b9c0d';
      const build = await simulatorBuild({ bundleId: 'com.example.cli.source', version: '5.0.0', buildNumber: '25' });
      const uploaded = await svc(['upload', build.path, '--no-ci', '--branch', 'feature/login', '--pull-request', '17', '--commit', sha, '--json']);
      expect(uploaded.code).toBe(0);
      const { id } = JSON.parse(uploaded.stdout);
      const found = async (...args: string[]) => {
        const result = await svc(['builds', 'list', ...args, '--json']);
        expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
        return (JSON.parse(result.stdout).items as { id: number }[]).map((item) => item.id);
      };
      for (const args of [['--search', 'feature/login'], ['-q', 'LOGIN'], ['--search', '#17'], ['--search', sha.slice(0, 7)], ['--branch', 'feature/login'], ['--pull-request', '17'], ['--commit', sha.slice(0, 10)]]) {
        expect({ args, ids: await found(...args) }).toEqual({ args, ids: [id] });
      }
      expect(await found('--branch', 'feature/login', '--pull-request', '18')).toEqual([]);
      const table = await svc(['builds', 'list', '--search', 'feature/login']);
      expect(table.stdout).toMatch(/^ID\s+APP\s+NAME\s+VERSION\s+PLATFORM\s+STATUS\s+LABEL\s+SOURCE\s+UPLOADED\n/);
      expect(table.stdout).toMatch(new RegExp(`^${id}\\s.*5\\.0\\.0 \\(25\\).*feature/login \\(PR #17\\)`, 'm'));
      expectRefusal(await svc(['builds', 'list', '--commit', 'xyz']), (await relayAnswer('get', '/api/v1/builds?commit=xyz')).error);
      const usage = await svc(['builds', 'list', '--pull-request', '0']);
      expect(usage.code).toBe(2);
      // The release gate's filter (issue 38): no policy here, so no build has a gate to match.
      expect(await found('--pull-request', '17', '--gate', 'failed')).toEqual([]);
      expect((await svc(['builds', 'list', '--gate', 'red'])).code).toBe(2);
    });

    it('upload without --json ends with the build page\'s URL on the address the CLI reached', async () => {
      const build = await simulatorBuild({ bundleId: 'com.example.cli.page' });
      const result = await svc(['upload', build.path]);
      expect(result.code).toBe(0);
      const id = Number(/^Uploaded build #(\d+) /.exec(result.stdout)?.[1]);
      expect(result.stdout.trimEnd().split('\n').pop()).toBe(`Build page: ${relay.url}/builds/${id}`);
    });

    it('builds show of a missing build: exit 1, "Build not found"', async () => {
      expectRefusal(await svc(['builds', 'show', '987654']), 'Build not found');
    });

    it(
      'a 300 MB upload streams: the CLI\'s memory stays far below the file size',
      async () => {
        const size = 300 * 1024 * 1024;
        const build = await simulatorBuild({ bundleId: 'com.example.large', paddingBytes: size });
        expect(statSync(build.path).size).toBeGreaterThan(size);
        const child = spawnCli(['upload', build.path, '--json'], { env: { SVC_URL: relay.url, SVC_TOKEN: devPat } });
        const [result, peakKb] = await Promise.all([collect(child), peakRss(child)]);
        // stderr is not a terminal: progress lines only (ci-logs.e2e-spec.ts), the last at 100 %.
        expect(result.stderr).toMatch(/^(Uploading SampleApp\.tar\.gz: +\d+% \(.*\)\n)+$/);
        expect(result.stderr).toMatch(/ 100% \(.*\)\n$/);
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout).bundle_id).toBe('com.example.large');
        expect(peakKb).toBeGreaterThan(0);
        expect(peakKb * 1024).toBeLessThan(160 * 1024 * 1024);
      },
      120_000,
    );
  });
});

function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The child's peak resident memory (VmHWM, kB), sampled from /proc until it exits. */
async function peakRss(child: ChildProcess): Promise<number> {
  let peak = 0;
  while (child.exitCode === null && child.signalCode === null) {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak, Number(match[1]));
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return peak;
}
