import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { simulatorBuild } from './build-fixtures';
import { CLI_TEST_TIMEOUT_MS, emptyDir, runCli } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const COMMIT = 'a'.repeat(40);

/**
 * The client commands as a CI log shows them (issue 40): --json carries what a pipeline needs
 * next, `builds show` prints nested fields readably, a long transfer prints progress lines when
 * stderr is not a terminal, a refused token says what to do, a browser URL in SVC_URL works, and
 * under --json an error is JSON on stdout too.
 */
describe('svc for CI logs', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let developer: TestMember;
  let pat: string;

  beforeAll(async () => {
    // A dashboard to answer page paths, as a deployed relay has (the test relay has none by default).
    const webDir = emptyDir('svc-web-');
    writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>svc</title>');
    relay = await startTestRelay({ SVC_WEB_DIR: webDir });
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
    pat = await members.pat(developer);
  });
  afterAll(() => relay.close());

  const svc = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { SVC_URL: relay.url, SVC_TOKEN: pat, ...env } });
  const provenanceFlags = ['--no-ci', '--commit', COMMIT, '--branch', 'feature/logs', '--pull-request', '12', '--changelog', 'Check the login\nand the logout'];
  const provenance = {
    commit: COMMIT,
    branch: 'feature/logs',
    repository: null,
    pull_request: 12,
    ci_url: null,
    changelog: 'Check the login\nand the logout',
  };

  it('upload --json: the summary plus version_label, provenance and the build page URL, on one line', async () => {
    const build = await simulatorBuild({ bundleId: 'com.example.logs.json' });
    const result = await svc(['upload', build.path, '--label', 'nightly', ...provenanceFlags, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out)).toEqual([
      'id', 'app_id', 'name', 'version_name', 'build_number', 'status_label', 'platform', 'bundle_id', 'uploaded_at',
      'version_label', 'provenance', 'build_page_url',
    ]);
    expect(out).toMatchObject({ bundle_id: 'com.example.logs.json', version_label: 'nightly', provenance, build_page_url: `${relay.url}/builds/${out.id}` });

    const plain = await svc(['upload', build.path, '--no-ci', '--json']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ version_label: null, provenance: null });
  });

  it('upload and builds show without --json print provenance as readable lines, never [object Object]', async () => {
    const build = await simulatorBuild({ bundleId: 'com.example.logs.show' });
    const uploaded = await svc(['upload', build.path, '--label', 'nightly', ...provenanceFlags]);
    expect(uploaded.code).toBe(0);
    const id = Number(/^Uploaded build #(\d+) /.exec(uploaded.stdout)?.[1]);
    expect(uploaded.stdout).toMatch(/^label:\s+nightly$/m);
    expect(uploaded.stdout).toMatch(new RegExp(`^commit:\\s+${COMMIT}$`, 'm'));
    expect(uploaded.stdout).toMatch(/^branch:\s+feature\/logs$/m);

    const shown = await svc(['builds', 'show', String(id)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain('[object Object]');
    expect(shown.stdout).toMatch(new RegExp(`^provenance\\.commit:\\s+${COMMIT}$`, 'm'));
    expect(shown.stdout).toMatch(/^provenance\.branch:\s+feature\/logs$/m);
    expect(shown.stdout).toMatch(/^provenance\.pull_request:\s+12$/m);
    expect(shown.stdout).toMatch(/^provenance\.repository:\s+-$/m);
    // A multi-line value keeps its lines, the next ones indented under the first.
    expect(shown.stdout).toMatch(/^provenance\.changelog:\s+Check the login\n\s+and the logout$/m);
    expect(shown.stdout).toMatch(/^flags:\s+-$/m);
  });

  it('without a terminal, a transfer of a few MB prints a line at every 10 % (upload and download, with or without --json)', async () => {
    const build = await simulatorBuild({ name: 'Big', bundleId: 'com.example.logs.big', paddingBytes: 3 * 1024 * 1024 });
    for (const json of [false, true]) {
      const result = await svc(['upload', build.path, '--no-ci', ...(json ? ['--json'] : [])]);
      expect(result.code).toBe(0);
      expect(percentsOf(result.stderr, 'Uploading Big.tar.gz')).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
      if (json) {
        expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
        const id = JSON.parse(result.stdout).id;
        const saved = await svc(['builds', 'download', String(id), '-o', `${emptyDir()}/`]);
        expect(saved.code).toBe(0);
        expect(percentsOf(saved.stderr, `Downloading build #${id}`)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
      }
    }
  });

  it('a refused token says it is unknown, revoked or expired, and where to make a new one', async () => {
    const revoked = await members.pat(developer);
    const tokens = (await members.as(developer, 'get', '/api/v1/tokens').expect(200)).body as Array<{ id: number }>;
    await members.as(developer, 'delete', `/api/v1/tokens/${tokens[tokens.length - 1].id}`).expect(204);
    const answer = await members.withPat(revoked, 'get', '/api/v1/builds');
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: { error: 'Unauthorized' } });

    const result = await svc(['builds', 'list'], { SVC_TOKEN: revoked });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'svc: Unauthorized\n' +
        'The relay refused the token in SVC_TOKEN: it is unknown, revoked or expired (the relay does not say which). ' +
        `Make a new one at ${relay.url}/tokens (account menu → Access tokens).\n`,
    );
    const flag = await runCli(['builds', 'list', '--url', relay.url, '--token', revoked]);
    expect(flag.stderr).toContain('The relay refused the token in --token: it is unknown, revoked or expired');

    const malformed = await svc(['apps', 'list'], { SVC_TOKEN: 'svc_pat_cut-short' });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toBe(
      'svc: Unauthorized\n' +
        'The token in SVC_TOKEN is not a whole personal access token (svc_pat_ and 43 more characters): was it cut short or copied with extra characters? ' +
        `Make a new one at ${relay.url}/tokens (account menu → Access tokens).\n`,
    );
  });

  it('SVC_URL copied from the browser with a page path works; another path gets a sentence about SVC_URL', async () => {
    for (const url of [`${relay.url}/builds/3`, `${relay.url}/builds?status=Done`, `${relay.url}/tokens/`, `${relay.url}/api/v1`]) {
      const result = await svc(['builds', 'list', '--json'], { SVC_URL: url });
      expect({ url, code: result.code, stderr: result.stderr }).toEqual({ url, code: 0, stderr: '' });
      expect(Array.isArray(JSON.parse(result.stdout).items)).toBe(true);
    }
    const odd = await svc(['builds', 'list'], { SVC_URL: `${relay.url}/somewhere` });
    expect(odd.code).toBe(1);
    expect(odd.stderr).toBe(
      `svc: ${relay.url}/somewhere/api/v1/builds answered with a web page, not the relay's API: ` +
        `set SVC_URL to the relay's address alone, such as ${relay.url}\n`,
    );
  });

  it('under --json an error is one JSON line on stdout too (refusal, token, usage), with the same exit codes', async () => {
    const missing = await svc(['builds', 'show', '987654', '--json']);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: 'svc: Build not found\n' });
    expect(JSON.parse(missing.stdout)).toEqual({ error: 'Build not found', status: 404 });
    expect(missing.stdout.split('\n')).toHaveLength(2);

    const refused = await svc(['builds', 'list', '--json'], { SVC_TOKEN: 'svc_pat_' + 'x'.repeat(43) });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'Unauthorized',
      status: 401,
      hint: `The relay refused the token in SVC_TOKEN: it is unknown, revoked or expired (the relay does not say which). Make a new one at ${relay.url}/tokens (account menu → Access tokens).`,
    });

    const unreachable = await svc(['apps', 'list', '--json'], { SVC_URL: 'http://127.0.0.1:1' });
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stdout)).toEqual({ error: 'Cannot reach the relay at http://127.0.0.1:1: ECONNREFUSED' });

    const usage = await svc(['builds', 'list', '--limit', '500', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ error: expect.stringContaining('expected at most 100') });
    const noToken = await svc(['apps', 'list', '--json'], { SVC_TOKEN: undefined });
    expect(noToken.code).toBe(2);
    expect(JSON.parse(noToken.stdout).error).toContain('set SVC_TOKEN or pass --token');

    const plain = await svc(['builds', 'show', '987654']);
    expect({ code: plain.code, stdout: plain.stdout }).toEqual({ code: 1, stdout: '' });
  });
});

/** The 10 % steps of the progress lines that start with `label`, in the order printed (each line whole). */
function percentsOf(stderr: string, label: string): number[] {
  const lines = stderr.split('\n').filter(Boolean);
  for (const line of lines) expect(line).toMatch(new RegExp(`^${label.replace(/[.#]/g, '\\$&')}: +\\d+% \\([\\d.]+ [KMG]?B of [\\d.]+ MB\\)$`));
  const percents = lines.map((line) => Number(/: +(\d+)%/.exec(line)![1]));
  // A step's line shows the percent reached (31 %); a slow machine may repeat a step after 10 s.
  return percents.map((p) => Math.floor(p / 10) * 10).filter((p, i, all) => all.indexOf(p) === i);
}
