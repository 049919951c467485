import { Command } from 'commander';
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { RelayRefusedError, usageError } from '../../relay-client/client-errors';
import {
  ClientOptions,
  connectionFrom,
  parseNonNegativeInt,
  parsePlatform,
  parsePositiveInt,
  parseStatus,
  withClientOptions,
} from '../client/client-options';
import { buildPageUrl } from '../client/dashboard-links';
import { progressFor } from '../client/progress-bar';
import { RelayClient } from '../../relay-client/relay-client';
import { requiresScope } from '../client/required-scope';
import { uploadResumable } from '../client/resumable-upload';
import { ResumeState } from '../client/resume-state';
import type { Build, BuildStatus, BuildSummary } from '../../relay-client/relay-types';
import { formatRecord, printJson } from '../output';
import { VERDICT_IS_A_PERSONS_DECISION } from './verdict-note';
import { provenanceFromCi } from '../client/ci-provenance';

interface UploadOptions extends ClientOptions {
  status?: BuildStatus;
  label?: string;
  platform?: string;
  appId?: number;
  resumableAbove: number;
  commit?: string;
  branch?: string;
  repository?: string;
  pullRequest?: number;
  ciUrl?: string;
  changelog?: string;
  changelogFile?: string;
  /** False with --no-ci: the CI's environment is not read. */
  ci: boolean;
}

/** Files larger than this go up with tus (resumable) rather than one multipart request. */
const RESUMABLE_ABOVE_BYTES = 32 * 1024 * 1024;

export function uploadCommand(): Command {
  return withClientOptions(
    new Command('upload')
      .description('Upload a build (.apk, .app.zip, .tar.gz, .tgz) to the relay; the file is streamed, never loaded whole')
      .argument('<file>', 'the build file')
      .option('--status <status>', 'initial review status: Backlog, "In Progress", Done or Rejected (omit = unset)', parseStatus)
      .option('--label <text>', 'free-text label, e.g. the branch name')
      .option('--platform <platform>', 'ios or android (default: from the file type)', parsePlatform)
      .option('--app-id <id>', 'attach to this existing app instead of resolving it from the bundle id', parsePositiveInt)
      .option('--commit <sha>', 'full SHA of the commit the build was made from (default: from the CI)')
      .option('--branch <name>', 'branch (default: from the CI)')
      .option('--repository <owner/name>', 'repository on a forge the relay posts statuses to (default: from the CI)')
      .option('--pull-request <number>', 'pull (merge) request number (default: from the CI)', parsePositiveInt)
      .option('--ci-url <url>', 'the CI run (default: from the CI)')
      .option('--changelog <text>', 'what to test in this build')
      .option('--changelog-file <path>', 'what to test, read from a file')
      .option('--no-ci', "do not read the CI's environment for the provenance fields")
      .option(
        '--resumable-above <bytes>',
        'files larger than this are sent resumably (tus): a dropped connection is retried and resumes where it stopped',
        parseNonNegativeInt,
        RESUMABLE_ABOVE_BYTES,
      ),
  )
    .addHelpText(
      'after',
      `
Prints the build summary, its label and provenance, and its page in the dashboard (one JSON line
with --json: the relay's summary plus version_label, provenance and build_page_url). Progress goes
to stderr: a bar on a terminal, else (a CI log, --json) a line at every 10 % and every 10 s.
Files above --resumable-above (32 MiB) use the relay's tus endpoint: after a dropped connection the
upload resumes by itself from the bytes the relay already holds (retrying for a few minutes), and
running the same command again within 24 h continues an upload a previous run left unfinished.

Examples:
  $ export SVC_URL=https://relay.example.com SVC_TOKEN=svc_pat_…
  $ svc upload app-release.apk --status Backlog --label "$BRANCH" --json
  $ svc upload build/MyApp.app.zip --platform ios --app-id 3
  $ svc upload app.apk --changelog-file CHANGELOG.txt     # in CI: commit, branch, repository, PR, run URL filled in

In GitHub Actions, GitLab CI, Bitrise, CircleCI, Jenkins, Buildkite and Azure Pipelines the
commit, branch, repository, pull request and CI run URL are read from the CI's variables
(docs/integrations.md); each flag overrides its variable, --no-ci reads none.`,
    )
    .action(
      requiresScope(['builds:write'], async (file: string, options: UploadOptions) => {
        const path = resolve(file);
        let size: number;
        let mtimeMs: number;
        try {
          const stat = statSync(path);
          if (!stat.isFile()) throw usageError(`${file} is not a file`);
          size = stat.size;
          mtimeMs = stat.mtimeMs;
        } catch (err) {
          if (err.code === 'ENOENT') throw usageError(`${file}: no such file`);
          throw err;
        }
        const connection = connectionFrom(options);
        const client = new RelayClient(connection);
        const progress = progressFor(`Uploading ${basename(path)}`, size, options.json);
        let summary: BuildSummary;
        try {
          const fields = {
            status: options.status,
            label: options.label,
            platform: options.platform,
            app_id: options.appId === undefined ? undefined : String(options.appId),
            ...provenanceOf(options),
          };
          const onProgress = (bytes: number) => progress?.advance(bytes);
          if (size > options.resumableAbove) {
            const resume = { state: new ResumeState(), key: ResumeState.keyOf({ baseUrl: connection.baseUrl, path, size, mtimeMs, fields }) };
            summary = await uploadResumable<BuildSummary>(client, { path, name: basename(path), size }, fields, onProgress, resume);
          } else {
            summary = await client.postMultipart<BuildSummary>('/builds', fields, { field: 'file', path, name: basename(path), size }, onProgress);
          }
        } catch (err) {
          // Only when the relay's refusal is about the status itself (not a Viewer or scope refusal).
          if (err instanceof RelayRefusedError && err.status === 403 && options.status && /status|verdict/i.test(err.relayMessage)) {
            throw err.withHint(VERDICT_IS_A_PERSONS_DECISION);
          }
          throw err;
        } finally {
          progress?.finish();
        }
        const stored = await labelAndProvenance(client, summary.id);
        const buildPage = buildPageUrl(connection.baseUrl, summary.id);
        if (options.json) return printJson({ ...summary, ...stored, build_page_url: buildPage });
        process.stdout.write(
          `Uploaded build #${summary.id} of ${summary.name}\n` +
            formatRecord({
              app_id: summary.app_id,
              version: `${summary.version_name} (${summary.build_number})`,
              bundle_id: summary.bundle_id,
              platform: summary.platform,
              status: summary.status_label,
              ...(stored && { label: stored.version_label, ...stored.provenance }),
              uploaded_at: summary.uploaded_at,
            }) +
            `Build page: ${buildPage}\n`,
        );
      }),
    );
}

/**
 * The label and provenance as the relay stored them: POST /builds answers exactly the spec's
 * summary, without them, so the build is read back (the upload's `builds:write` scope reads it).
 * A failed read does not undo the upload: it is said on stderr, and the output goes without them.
 */
async function labelAndProvenance(client: RelayClient, id: number): Promise<Pick<Build, 'version_label' | 'provenance'> | null> {
  try {
    const build = await client.getJson<Build>(`/builds/${id}`);
    return { version_label: build.version_label, provenance: build.provenance ?? null };
  } catch (err) {
    process.stderr.write(`svc: build #${id} was uploaded, but reading back its label and provenance failed: ${(err as Error).message}\n`);
    return null;
  }
}

/** The provenance fields: the CI's (unless --no-ci), each overridden by its flag. */
function provenanceOf(options: UploadOptions): Record<string, string | undefined> {
  const fromCi = options.ci ? (provenanceFromCi(process.env)?.fields ?? {}) : {};
  let changelog = options.changelog;
  if (options.changelogFile !== undefined) {
    try {
      changelog = readFileSync(resolve(options.changelogFile), 'utf8');
    } catch (err) {
      throw usageError(`${options.changelogFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  return {
    commit: options.commit ?? fromCi.commit,
    branch: options.branch ?? fromCi.branch,
    repository: options.repository ?? fromCi.repository,
    pull_request: options.pullRequest !== undefined ? String(options.pullRequest) : fromCi.pull_request,
    ci_url: options.ciUrl ?? fromCi.ci_url,
    changelog,
  };
}
