import { readFileSync } from 'node:fs';

/** The provenance fields of POST /builds (docs/builds.md "Provenance"), as text fields. */
export interface ProvenanceFields {
  commit?: string;
  branch?: string;
  repository?: string;
  pull_request?: string;
  ci_url?: string;
}

type Env = Record<string, string | undefined>;

/** Which CI this is and what it says about the build, or null outside a CI the CLI knows. */
export interface CiProvenance {
  ci: string;
  fields: ProvenanceFields;
}

/**
 * Reads the provenance of the build from the CI's environment (docs/integrations.md "svc upload in
 * CI" lists every variable). Values the relay would refuse (an abbreviated SHA, a repository that
 * is not owner/name, a PR number that is not one) are left out rather than failing the upload.
 */
export function provenanceFromCi(env: Env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): CiProvenance | null {
  for (const [ci, detect] of DETECTORS) {
    const fields = detect(env, readFile);
    if (fields) return { ci, fields: clean(fields) };
  }
  return null;
}

const DETECTORS: [string, (env: Env, readFile: (path: string) => string) => ProvenanceFields | null][] = [
  ['GitHub Actions', githubActions],
  ['GitLab CI', (env) =>
    env.GITLAB_CI !== 'true'
      ? null
      : {
          commit: env.CI_COMMIT_SHA,
          branch: env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME,
          repository: env.CI_PROJECT_PATH,
          pull_request: env.CI_MERGE_REQUEST_IID,
          ci_url: env.CI_PIPELINE_URL || env.CI_JOB_URL,
        }],
  ['Bitrise', (env) =>
    env.BITRISE_IO !== 'true' && !env.BITRISE_BUILD_URL
      ? null
      : {
          commit: env.BITRISE_GIT_COMMIT || env.GIT_CLONE_COMMIT_HASH,
          branch: env.BITRISE_GIT_BRANCH,
          repository: repositoryFromUrl(env.GIT_REPOSITORY_URL),
          pull_request: env.BITRISE_PULL_REQUEST,
          ci_url: env.BITRISE_BUILD_URL,
        }],
  ['CircleCI', (env) =>
    env.CIRCLECI !== 'true'
      ? null
      : {
          commit: env.CIRCLE_SHA1,
          branch: env.CIRCLE_BRANCH,
          repository: env.CIRCLE_PROJECT_USERNAME && env.CIRCLE_PROJECT_REPONAME ? `${env.CIRCLE_PROJECT_USERNAME}/${env.CIRCLE_PROJECT_REPONAME}` : undefined,
          pull_request: /\/(\d+)$/.exec(env.CIRCLE_PULL_REQUEST ?? '')?.[1],
          ci_url: env.CIRCLE_BUILD_URL,
        }],
  ['Buildkite', (env) =>
    env.BUILDKITE !== 'true'
      ? null
      : {
          commit: env.BUILDKITE_COMMIT,
          branch: env.BUILDKITE_BRANCH,
          repository: repositoryFromUrl(env.BUILDKITE_REPO),
          pull_request: env.BUILDKITE_PULL_REQUEST === 'false' ? undefined : env.BUILDKITE_PULL_REQUEST,
          ci_url: env.BUILDKITE_BUILD_URL,
        }],
  ['Azure Pipelines', (env) =>
    env.TF_BUILD?.toLowerCase() !== 'true'
      ? null
      : {
          commit: env.SYSTEM_PULLREQUEST_SOURCECOMMITID || env.BUILD_SOURCEVERSION,
          branch: stripRef(env.SYSTEM_PULLREQUEST_SOURCEBRANCH || env.BUILD_SOURCEBRANCH),
          repository: env.BUILD_REPOSITORY_NAME,
          pull_request: env.SYSTEM_PULLREQUEST_PULLREQUESTNUMBER || env.SYSTEM_PULLREQUEST_PULLREQUESTID,
          ci_url:
            env.SYSTEM_COLLECTIONURI && env.SYSTEM_TEAMPROJECT && env.BUILD_BUILDID
              ? `${env.SYSTEM_COLLECTIONURI.replace(/\/?$/, '/')}${encodeURIComponent(env.SYSTEM_TEAMPROJECT)}/_build/results?buildId=${env.BUILD_BUILDID}`
              : undefined,
        }],
  // Last: JENKINS_URL is also set by tools that talk to Jenkins from other CIs.
  ['Jenkins', (env) =>
    !env.JENKINS_URL || !env.BUILD_URL
      ? null
      : {
          commit: env.GIT_COMMIT,
          branch: env.CHANGE_BRANCH || env.BRANCH_NAME || env.GIT_BRANCH?.replace(/^origin\//, ''),
          repository: repositoryFromUrl(env.CHANGE_URL ? env.CHANGE_URL.replace(/\/(pull|merge_requests)\/\d+.*$/, '') : env.GIT_URL),
          pull_request: env.CHANGE_ID,
          ci_url: env.BUILD_URL,
        }],
];

/**
 * GitHub Actions. On `pull_request` events GITHUB_SHA is a merge commit GitHub made, not the
 * commit the pull request's checks are on: the head commit and the number come from the event
 * payload (GITHUB_EVENT_PATH).
 */
function githubActions(env: Env, readFile: (path: string) => string): ProvenanceFields | null {
  if (env.GITHUB_ACTIONS !== 'true') return null;
  let event: { pull_request?: { number?: number; head?: { sha?: string } } } = {};
  if (env.GITHUB_EVENT_NAME?.startsWith('pull_request') && env.GITHUB_EVENT_PATH) {
    try {
      event = JSON.parse(readFile(env.GITHUB_EVENT_PATH));
    } catch {
      event = {};
    }
  }
  return {
    commit: event.pull_request?.head?.sha || env.GITHUB_SHA,
    branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME,
    repository: env.GITHUB_REPOSITORY,
    pull_request: event.pull_request?.number?.toString() ?? /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '')?.[1],
    ci_url:
      env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
        ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
        : undefined,
  };
}

/** `owner/name` from a clone URL: https://host/owner/name(.git), git@host:owner/name.git, ssh://git@host/group/sub/name.git. */
export function repositoryFromUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const path = /^[\w.-]+@[\w.-]+:(.+)$/.exec(url)?.[1] ?? (() => {
    try {
      return new URL(url).pathname.replace(/^\//, '');
    } catch {
      return undefined;
    }
  })();
  return path?.replace(/\.git$/, '').replace(/\/$/, '') || undefined;
}

function stripRef(ref: string | undefined): string | undefined {
  return ref?.replace(/^refs\/heads\//, '');
}

/** Only what the relay accepts; blanks dropped. */
function clean(fields: ProvenanceFields): ProvenanceFields {
  const out: ProvenanceFields = {};
  const trimmed = (value: string | undefined) => value?.trim() || undefined;
  const commit = trimmed(fields.commit);
  if (commit && /^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(commit)) out.commit = commit;
  const branch = trimmed(fields.branch);
  if (branch && branch.length <= 255) out.branch = branch;
  const repository = trimmed(fields.repository);
  if (repository && /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/.test(repository) && repository.length <= 200) out.repository = repository;
  const pr = trimmed(fields.pull_request);
  if (pr && /^[1-9]\d{0,9}$/.test(pr) && Number(pr) <= 2147483647) out.pull_request = pr;
  const ciUrl = trimmed(fields.ci_url);
  if (ciUrl && /^https?:\/\//i.test(ciUrl) && ciUrl.length <= 2048) out.ci_url = ciUrl;
  return out;
}
