import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { describeUnless } from '../support/describe-unless';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { CLI_TEST_TIMEOUT_MS, cliEnv, emptyDir, REPO_ROOT, runCli, RunningCli } from './cli-process';
import { compiledCliMain } from './compiled-cli';
import { TerminalCli } from './terminal-cli';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const PASSWORD = 'first admin passphrase';
const onPostgres = !!process.env.SVC_TEST_DATABASE_URL;

/** Issue 24 item 6: the traps of a first run (admin init on the wrong data folder, the prompt, start-up output). */
describe('first run', () => {
  let relay: TestRelay;
  beforeEach(async () => {
    relay = await startTestRelay();
  });
  afterEach(() => relay.close());

  const login = (password: string) => request(relay.url).post('/api/v1/auth/login').send({ email: 'owner@example.com', password });

  describeUnless(
    onPostgres ? 'with PostgreSQL the accounts live in SVC_DATABASE_URL, not in the data folder, so there is no data-folder mismatch to detect' : null,
    'svc admin init and the data folder of the running relay',
    () => {
      it('refuses (exit 1, nothing created) a data folder no relay runs on while a relay answers on the configured port', async () => {
        const elsewhere = emptyDir('svc-other-data-');
        const result = await runCli(['admin', 'init', '--email', 'owner@example.com', '--data-dir', elsewhere], {
          env: { SVC_ADMIN_PASSWORD: PASSWORD, SVC_PORT: String(relay.port) },
        });
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`svc: A relay is running at http://127.0.0.1:${relay.port}, but not on the data folder ${elsewhere}`);
        expect(result.stderr).toContain('--data-dir');
        expect(readdirSync(elsewhere)).toEqual([]);
        expect((await relay.http().get('/api/v1/auth/status')).body.initialized).toBe(false);
      });

      it('goes ahead on the data folder the relay runs on (it names itself in relay.json there)', async () => {
        expect(existsSync(join(relay.dataDir, 'relay.json'))).toBe(true);
        const result = await runCli(['admin', 'init', '--email', 'owner@example.com', '--data-dir', relay.dataDir], {
          env: { SVC_ADMIN_PASSWORD: PASSWORD, SVC_PORT: String(relay.port) },
        });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        await login(PASSWORD).expect(200);
      });
    },
  );

  it('asks for the password again when the two entries differ, then creates the Admin', async () => {
    const cli = TerminalCli.start(['admin', 'init', '--email', 'owner@example.com', '--data-dir', relay.dataDir], {
      env: { SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL, SVC_PORT: String(relay.port) },
    });
    try {
      await cli.waitFor('Password for the first Admin: ');
      cli.type(PASSWORD);
      await cli.waitFor('Repeat the password: ');
      cli.type('not the same passphrase');
      await cli.waitFor('The passwords do not match. Try again.');
      await cli.waitFor('Password for the first Admin: ', 2);
      cli.type(PASSWORD);
      await cli.waitFor('Repeat the password: ', 2);
      cli.type(PASSWORD);
      expect(await cli.exited).toBe(0);
    } finally {
      cli.kill();
    }
    expect(cli.output).toContain('Created the first Admin owner@example.com');
    expect(cli.output).not.toContain(PASSWORD); // no echo
    await login(PASSWORD).expect(200);
  });

  it('npm start: no route-mapping lines at the default level, and one line saying what to open (or that it is ready)', async () => {
    await relay.app.close();
    const mainJs = join(dirname(dirname(compiledCliMain(REPO_ROOT))), 'main.js');
    const start = () =>
      new RunningCli(
        spawn(process.execPath, [mainJs], {
          cwd: emptyDir(),
          env: cliEnv({ ...relay.env, SVC_PORT: '0', SVC_LOG_LEVEL: undefined }),
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    const first = start();
    try {
      const [, url] = await first.waitFor(/^Open (http:\/\/localhost:\d+\/) in a browser on this machine to create the first Admin/);
      expect(first.lines.filter((line) => line.startsWith('Open ') || line.startsWith('Relay ready'))).toHaveLength(1);
      expect(first.lines.join('\n')).toContain('svc admin init --email');
      expect(first.lines.join('\n')).not.toContain('Mapped {');
      expect((await request(url.replace('localhost', '127.0.0.1').replace(/\/$/, '')).get('/api/v1/auth/status')).body).toEqual({ initialized: false, canInitialize: true });
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const init = await runCli(['admin', 'init', '--email', 'owner@example.com', '--data-dir', relay.dataDir], {
      env: { SVC_ADMIN_PASSWORD: PASSWORD, SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL },
      timeoutMs: 90_000,
    });
    expect(init.code).toBe(0);
    const second = start();
    try {
      await second.waitFor(/^Relay ready at http:\/\/localhost:\d+\/$/);
      expect(second.lines.join('\n')).not.toMatch(/^Open /m);
    } finally {
      await second.stop();
    }
  });
});
