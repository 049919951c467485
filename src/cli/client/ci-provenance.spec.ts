import { provenanceFromCi, repositoryFromUrl } from './ci-provenance';

const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const HEAD = 'a'.repeat(40);

/** Each CI's variables as its documentation names them (docs/integrations.md "svc upload in CI"). */
describe('provenanceFromCi', () => {
  it('GitHub Actions: on a pull_request event, the head commit and number from the event payload', () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: '/tmp/event.json',
      GITHUB_SHA: SHA, // the merge commit GitHub made
      GITHUB_HEAD_REF: 'feature/login',
      GITHUB_REF: 'refs/pull/42/merge',
      GITHUB_REF_NAME: '42/merge',
      GITHUB_REPOSITORY: 'acme/app',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '123',
    };
    const read = (path: string) => (path === '/tmp/event.json' ? JSON.stringify({ pull_request: { number: 42, head: { sha: HEAD } } }) : '');
    expect(provenanceFromCi(env, read)).toEqual({
      ci: 'GitHub Actions',
      fields: { commit: HEAD, branch: 'feature/login', repository: 'acme/app', pull_request: '42', ci_url: 'https://github.com/acme/app/actions/runs/123' },
    });
    // A push: GITHUB_SHA and the branch name; no pull request.
    const push = { ...env, GITHUB_EVENT_NAME: 'push', GITHUB_HEAD_REF: '', GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' };
    expect(provenanceFromCi(push, read)?.fields).toEqual({ commit: SHA, branch: 'main', repository: 'acme/app', ci_url: 'https://github.com/acme/app/actions/runs/123' });
  });

  it.each([
    [
      'GitLab CI',
      { GITLAB_CI: 'true', CI_COMMIT_SHA: SHA, CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'mr-branch', CI_COMMIT_REF_NAME: 'x', CI_PROJECT_PATH: 'group/sub/app', CI_MERGE_REQUEST_IID: '7', CI_PIPELINE_URL: 'https://gitlab.example/group/sub/app/-/pipelines/9' },
      { commit: SHA, branch: 'mr-branch', repository: 'group/sub/app', pull_request: '7', ci_url: 'https://gitlab.example/group/sub/app/-/pipelines/9' },
    ],
    [
      'Bitrise',
      { BITRISE_IO: 'true', BITRISE_GIT_COMMIT: SHA, BITRISE_GIT_BRANCH: 'dev', GIT_REPOSITORY_URL: 'git@github.com:acme/app.git', BITRISE_PULL_REQUEST: '5', BITRISE_BUILD_URL: 'https://app.bitrise.io/build/abc' },
      { commit: SHA, branch: 'dev', repository: 'acme/app', pull_request: '5', ci_url: 'https://app.bitrise.io/build/abc' },
    ],
    [
      'CircleCI',
      { CIRCLECI: 'true', CIRCLE_SHA1: SHA, CIRCLE_BRANCH: 'pr-branch', CIRCLE_PROJECT_USERNAME: 'acme', CIRCLE_PROJECT_REPONAME: 'app', CIRCLE_PULL_REQUEST: 'https://github.com/acme/app/pull/11', CIRCLE_BUILD_URL: 'https://circleci.com/gh/acme/app/77' },
      { commit: SHA, branch: 'pr-branch', repository: 'acme/app', pull_request: '11', ci_url: 'https://circleci.com/gh/acme/app/77' },
    ],
    [
      'Jenkins',
      { JENKINS_URL: 'https://ci.lan/', BUILD_URL: 'https://ci.lan/job/app/PR-3/1/', GIT_COMMIT: SHA, CHANGE_BRANCH: 'topic', BRANCH_NAME: 'PR-3', CHANGE_ID: '3', CHANGE_URL: 'https://github.com/acme/app/pull/3' },
      { commit: SHA, branch: 'topic', repository: 'acme/app', pull_request: '3', ci_url: 'https://ci.lan/job/app/PR-3/1/' },
    ],
    [
      'Buildkite',
      { BUILDKITE: 'true', BUILDKITE_COMMIT: SHA, BUILDKITE_BRANCH: 'main', BUILDKITE_REPO: 'https://github.com/acme/app.git', BUILDKITE_PULL_REQUEST: 'false', BUILDKITE_BUILD_URL: 'https://buildkite.com/acme/app/builds/8' },
      { commit: SHA, branch: 'main', repository: 'acme/app', ci_url: 'https://buildkite.com/acme/app/builds/8' },
    ],
    [
      'Azure Pipelines',
      {
        TF_BUILD: 'True',
        BUILD_SOURCEVERSION: SHA,
        SYSTEM_PULLREQUEST_SOURCECOMMITID: HEAD,
        SYSTEM_PULLREQUEST_SOURCEBRANCH: 'refs/heads/feature/x',
        BUILD_REPOSITORY_NAME: 'acme/app',
        SYSTEM_PULLREQUEST_PULLREQUESTNUMBER: '21',
        SYSTEM_COLLECTIONURI: 'https://dev.azure.com/acme/',
        SYSTEM_TEAMPROJECT: 'Mobile App',
        BUILD_BUILDID: '99',
      },
      { commit: HEAD, branch: 'feature/x', repository: 'acme/app', pull_request: '21', ci_url: 'https://dev.azure.com/acme/Mobile%20App/_build/results?buildId=99' },
    ],
  ])('%s', (ci, env, fields) => {
    expect(provenanceFromCi(env as Record<string, string>)).toEqual({ ci, fields });
  });

  it('leaves out what the relay would refuse, and finds nothing outside a CI', () => {
    expect(provenanceFromCi({ GITLAB_CI: 'true', CI_COMMIT_SHA: 'abc1234', CI_PROJECT_PATH: 'app', CI_MERGE_REQUEST_IID: '0', CI_PIPELINE_URL: 'ftp://x' })).toEqual({ ci: 'GitLab CI', fields: {} });
    expect(provenanceFromCi({ CI: 'true', PATH: '/usr/bin' })).toBeNull();
  });

  it('reads owner/name from clone URLs', () => {
    expect(repositoryFromUrl('https://github.com/acme/app.git')).toBe('acme/app');
    expect(repositoryFromUrl('ssh://git@gitlab.example:2222/group/sub/app.git')).toBe('group/sub/app');
    expect(repositoryFromUrl('git@bitbucket.org:team/app.git')).toBe('team/app');
    expect(repositoryFromUrl(undefined)).toBeUndefined();
  });
});
