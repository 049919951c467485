import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliEnv, CLI_TEST_TIMEOUT_MS, emptyDir, REPO_ROOT } from '../cli/cli-process';
import { compiledCliMain } from '../cli/compiled-cli';
import { itUnless } from '../support/describe-unless';
import { PG_ADMIN_URL, unreachable, withPgAdmin } from '../support/reachable';
import { startTestS3Server, TestS3Server } from '../support/s3-server';

interface Run {
  /** stdout and stderr lines, each in the order written. */
  lines: string[];
  code: number | null;
}

const READY = /create the first Admin|Relay ready at/;

/** src/main.ts (`npm start`), compiled beside the CLI's copy (test/cli/compiled-cli.ts). */
const compiledMain = () => join(dirname(dirname(compiledCliMain(REPO_ROOT))), 'main.js');

/**
 * `npm start` (src/main.ts, compiled) in a folder of its own: until its ready line (then SIGTERM) or
 * until it exits by itself, every line it writes on stdout and stderr.
 */
function runRelay(env: Record<string, string>, cwd = emptyDir('svc-start-')): Promise<Run> {
  const child = spawn(process.execPath, [compiledMain()], {
    cwd,
    env: cliEnv({ SVC_DATA_DIR: join(cwd, 'data'), SVC_PORT: '0', SVC_HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    if (READY.test(line)) child.kill('SIGTERM');
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  return new Promise((resolve) => child.on('close', (code) => resolve({ lines, code })));
}

const entries = (run: Run) => run.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const summaryOf = (run: Run) => entries(run).find((entry) => entry.context === 'Config' && entry.msg === 'configuration')!;
const TEXT_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (ERROR|WARN |INFO |DEBUG) \[[\w-]+\] /;

describe('start-up lines: one log format from the first line', () => {
  it('SVC_LOG_FORMAT=json (the default): every line is a JSON object, the listening and ready lines too', async () => {
    const run = await runRelay({});
    expect(run.lines.length).toBeGreaterThan(3);
    for (const line of run.lines) expect(() => JSON.parse(line)).not.toThrow();
    const messages = entries(run).map((entry) => entry.msg as string);
    // listening, then the summary, then what to do next; in that order, each once
    const order = [
      messages.findIndex((m) => m.startsWith('svc relay listening on http://127.0.0.1:')),
      messages.indexOf('configuration'),
      messages.findIndex((m) => m.startsWith('Open http://localhost:')),
    ];
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(messages.filter((m) => m.startsWith('svc relay listening on'))).toHaveLength(1);
    expect(messages.filter((m) => m === 'configuration')).toHaveLength(1);
  }, CLI_TEST_TIMEOUT_MS);

  it('SVC_LOG_FORMAT=text: every line is text (the summary a block of indented lines under its entry)', async () => {
    const run = await runRelay({ SVC_LOG_FORMAT: 'text' });
    expect(run.lines.length).toBeGreaterThan(3);
    for (const line of run.lines) {
      expect(line.startsWith('{')).toBe(false);
      expect(TEXT_LINE.test(line) || line.startsWith('  ')).toBe(true);
    }
    const start = run.lines.findIndex((line) => line.endsWith('[Config] configuration'));
    expect(start).toBeGreaterThanOrEqual(0);
    const block = run.lines.slice(start + 1, start + 8).map((line) => line.trim().split(':')[0]);
    expect(block).toEqual(['database', 'storage', 'redis', 'sso', 'forges', 'public_url', 'lan_address']);
    expect(run.lines.some((line) => / INFO  \[Relay\] svc relay listening on http:\/\/127\.0\.0\.1:\d+ /.test(line))).toBe(true);
  }, CLI_TEST_TIMEOUT_MS);

  it('log.format in svc.config.json is read before anything prints: a bad value elsewhere is reported in it', async () => {
    const cwd = emptyDir('svc-start-');
    writeFileSync(join(cwd, 'svc.config.json'), JSON.stringify({ log: { format: 'text' }, port: 'eighty' }));
    const run = await runRelay({ SVC_PORT: '' }, cwd);
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatch(TEXT_LINE);
    expect(run.lines[0]).toContain('ERROR [Config] svc relay: Invalid configuration port (in svc.config.json): expected a whole number');
  }, CLI_TEST_TIMEOUT_MS);

  it('JSON format: a bad value is reported as a JSON line too', async () => {
    const run = await runRelay({ SVC_PORT: 'eighty' });
    expect(run.code).toBe(1);
    expect(entries(run)).toEqual([
      expect.objectContaining({ level: 'error', context: 'Config', msg: expect.stringContaining('Invalid configuration SVC_PORT') }),
    ]);
  }, CLI_TEST_TIMEOUT_MS);

  it('bound to 127.0.0.1: the summary says that is why there is no LAN address; SVC_LOG_LEVEL=warn still prints it', async () => {
    const run = await runRelay({ SVC_LOG_LEVEL: 'warn' });
    expect(summaryOf(run).lan_address).toBe('none (bound to 127.0.0.1)');
    const messages = entries(run).map((entry) => entry.msg);
    expect(messages).toContainEqual(expect.stringMatching(/^svc relay listening on/));
    expect(messages).toContainEqual(expect.stringMatching(/^Open http:\/\/localhost:/));
  }, CLI_TEST_TIMEOUT_MS);
});

describe('start-up summary', () => {
  it('the defaults: SQLite in the data folder, files there, no Redis, no SSO, no forges, no public URL', async () => {
    const cwd = emptyDir('svc-start-');
    const run = await runRelay({}, cwd);
    const summary = summaryOf(run);
    expect(summary).toMatchObject({
      level: 'info',
      database: `sqlite ${join(cwd, 'data', 'svc.sqlite')}`,
      storage: `data folder ${join(cwd, 'data')}`,
      redis: 'none (one instance)',
      sso: { oidc: 'off', ldap: 'off', only: 'off' },
      forges: [],
      public_url: 'none',
    });
  }, CLI_TEST_TIMEOUT_MS);

  let s3: TestS3Server | null = null;
  afterAll(() => s3?.close());

  itUnless(
    unreachable([PG_ADMIN_URL]),
    'PostgreSQL with a password, S3 with a secret key, a forge token, an SMTP password: each item shown, no secret anywhere in the output',
    async () => {
      s3 = await startTestS3Server();
      const name = `svc_start_${randomBytes(6).toString('hex')}`;
      await withPgAdmin((client) => client.query(`CREATE DATABASE ${name}`));
      try {
        const dbPassword = `DbPw${randomBytes(8).toString('hex')}`;
        const smtpPassword = `SmtpPw${randomBytes(8).toString('hex')}`;
        const forgeToken = `forge-${randomBytes(12).toString('hex')}`;
        // The test PostgreSQL trusts local connections: the password is carried, never checked.
        const db = new URL(PG_ADMIN_URL);
        db.pathname = `/${name}`;
        db.username ||= 'postgres';
        db.password = dbPassword;
        const cwd = emptyDir('svc-start-');
        writeFileSync(
          join(cwd, 'svc.config.json'),
          JSON.stringify({ forges: [{ type: 'gitea', url: 'https://gitea.example/api/v1', tokenEnv: 'GITEA_TOKEN', repositories: ['acme/app'] }] }),
        );
        const run = await runRelay(
          {
            ...s3.env('builds'),
            SVC_DATABASE_URL: db.toString(),
            SVC_SMTP_HOST: 'smtp.example',
            SVC_SMTP_USER: 'mailer',
            SVC_SMTP_PASS: smtpPassword,
            GITEA_TOKEN: forgeToken,
            SVC_RELAY_URL: 'https://relay.example.com',
          },
          cwd,
        );
        const output = run.lines.join('\n');
        for (const secret of [dbPassword, smtpPassword, forgeToken, s3.env().AWS_SECRET_ACCESS_KEY]) expect(output).not.toContain(secret);
        const summary = summaryOf(run);
        expect(summary.database).toBe(`postgres ${db.toString().replace(dbPassword, '***')}`);
        expect(summary.storage).toBe(`s3://${s3.bucket}/builds (${s3.endpoint}, us-east-1)`);
        expect(summary.forges).toEqual(['gitea https://gitea.example/api/v1']);
        expect(summary.public_url).toBe('https://relay.example.com');
      } finally {
        await withPgAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
