import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { CLI_TEST_TIMEOUT_MS, emptyDir, runCli } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const HEAD = 'b'.repeat(40);

/**
 * `svc upload` fills the build's provenance from the CI's environment (docs/integrations.md
 * "svc upload in CI"), here GitHub Actions on a pull_request event with its event payload, and
 * each flag overrides its variable; --no-ci reads none. Checked through GET /builds/:id.
 */
describe('svc upload provenance from the CI', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let pat: string;
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    pat = await members.pat(await members.member('Developer'));
  });
  afterAll(() => relay.close());

  const dir = emptyDir();
  const eventPath = join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify({ pull_request: { number: 17, head: { sha: HEAD } } }));
  const actions = {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: 'c'.repeat(40),
    GITHUB_HEAD_REF: 'feature/cli',
    GITHUB_REF: 'refs/pull/17/merge',
    GITHUB_REPOSITORY: 'acme/app',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '555',
  };
  const upload = async (args: string[], env: Record<string, string>) => {
    const result = await runCli(['upload', fixture('string-label.apk'), '--json', ...args], { env: { SVC_URL: relay.url, SVC_TOKEN: pat, ...env } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const id = JSON.parse(result.stdout).id as number;
    return (await members.withPat(pat, 'get', `/api/v1/builds/${id}`).expect(200)).body.provenance;
  };

  it('reads GitHub Actions variables and the pull_request event, with a changelog file', async () => {
    const changelog = join(dir, 'changes.txt');
    writeFileSync(changelog, 'Try the new login\n');
    expect(await upload(['--changelog-file', changelog], actions)).toEqual({
      commit: HEAD,
      branch: 'feature/cli',
      repository: 'acme/app',
      pull_request: 17,
      ci_url: 'https://github.com/acme/app/actions/runs/555',
      changelog: 'Try the new login',
    });
  });

  it('flags override the variables; --no-ci reads none', async () => {
    expect(await upload(['--branch', 'override', '--pull-request', '3'], actions)).toEqual(
      expect.objectContaining({ commit: HEAD, branch: 'override', pull_request: 3, repository: 'acme/app' }),
    );
    expect(await upload(['--no-ci', '--changelog', 'only this'], actions)).toEqual({
      commit: null,
      branch: null,
      repository: null,
      pull_request: null,
      ci_url: null,
      changelog: 'only this',
    });
  });
});
