import type { Octokit } from '@octokit/rest';
import { AsyncLocalStorage } from 'node:async_hooks';
import { RELAY_VERSION } from '../../relay/relay-version';
import type { ConfigFileForge } from '../../config/forge-config';
import { ChangedCommit, ForgeClient, ForgeHttp, markedComment, refusalOf, StatusPost, titleOf } from './forge-client';

const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * GitHub and GitHub Enterprise through Octokit (`@octokit/rest` 20, the last CommonJS line; docs/dependencies.md):
 * a commit status with a token; with a GitHub App, a check run instead (the App's JWT and
 * installation token made and renewed by `@octokit/auth-app`). Every request goes through the
 * relay's pinned fetch; Octokit itself retries nothing (the outbox does).
 */
export class GitHubForgeClient implements ForgeClient {
  private readonly octokit: Octokit;
  /** What the fetch of the current call threw: Octokit turns it into a RequestError 500 without it (a refused destination, ECONNRESET). */
  private readonly fetchFailure = new AsyncLocalStorage<{ error?: unknown }>();

  constructor(
    private readonly forge: ConfigFileForge,
    private readonly http: ForgeHttp,
  ) {
    const fetchImpl: typeof fetch = async (input, init) => {
      try {
        return await http.fetch(input, init);
      } catch (err) {
        const slot = this.fetchFailure.getStore();
        if (slot) slot.error = err;
        throw err;
      }
    };
    // Loaded here, not at import: a relay without a GitHub forge never pays for Octokit at start-up.
    const { Octokit } = require('@octokit/rest') as typeof import('@octokit/rest');
    const { createAppAuth } = require('@octokit/auth-app') as typeof import('@octokit/auth-app');
    const options = { baseUrl: forge.url, userAgent: `svc-relay/${RELAY_VERSION}`, request: { fetch: fetchImpl }, log: SILENT };
    this.octokit = forge.app
      ? new Octokit({
          ...options,
          authStrategy: createAppAuth,
          auth: { appId: forge.app.appId, privateKey: forge.app.privateKey, installationId: forge.app.installationId },
        })
      : new Octokit({ ...options, auth: forge.token });
  }

  async post(status: StatusPost): Promise<void> {
    const [owner, ...rest] = status.repository.split('/');
    const repo = rest.join('/');
    await this.call(async () => {
      if (this.forge.app) await this.checkRun(owner, repo, status);
      else {
        await this.octokit.rest.repos.createCommitStatus({
          owner,
          repo,
          sha: status.commit,
          state: status.state,
          context: status.context,
          description: status.description,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        });
      }
    });
  }

  async compare(repository: string, base: string, head: string): Promise<ChangedCommit[]> {
    const [owner, ...rest] = repository.split('/');
    return this.call(async () => {
      const { data } = await this.octokit.rest.repos.compareCommitsWithBasehead({ owner, repo: rest.join('/'), basehead: `${base}...${head}`, per_page: 100 });
      return data.commits.map((c) => ({ sha: c.sha, title: titleOf(c.commit.message), author: c.commit.author?.name ?? c.author?.login ?? null, url: c.html_url ?? null }));
    });
  }

  async findComment(repository: string, pullRequest: number, marker: string): Promise<string | null> {
    const [owner, ...rest] = repository.split('/');
    return this.call(async () => {
      const { data } = await this.octokit.rest.issues.listComments({ owner, repo: rest.join('/'), issue_number: pullRequest, per_page: 100 });
      return markedComment(data, marker);
    });
  }

  async upsertComment(repository: string, pullRequest: number, commentId: string | null, body: string): Promise<string> {
    const [owner, ...rest] = repository.split('/');
    const repo = rest.join('/');
    return this.call(async () => {
      if (commentId) {
        await this.octokit.rest.issues.updateComment({ owner, repo, comment_id: Number(commentId), body });
        return commentId;
      }
      const created = await this.octokit.rest.issues.createComment({ owner, repo, issue_number: pullRequest, body });
      return String(created.data.id);
    });
  }

  /** Runs one Octokit call; a failure is what its fetch threw, else the forge's answer as a ForgeRefusal. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    const slot: { error?: unknown } = {};
    try {
      return await this.fetchFailure.run(slot, work);
    } catch (err) {
      throw slot.error ?? asRefusal(this.http, err);
    }
  }

  /** A new check run per change: GitHub shows (and branch protection reads) the newest of a name on the commit. */
  private async checkRun(owner: string, repo: string, status: StatusPost): Promise<void> {
    await this.octokit.rest.checks.create({
      owner,
      repo,
      name: status.context,
      head_sha: status.commit,
      external_id: String(status.buildId),
      ...(status.targetUrl ? { details_url: status.targetUrl } : {}),
      ...(status.state === 'pending' ? { status: 'in_progress' as const } : { status: 'completed' as const, conclusion: status.state }),
      output: { title: status.description, summary: status.summary ?? status.description },
    });
  }
}

/** Octokit's RequestError for an answer becomes a ForgeRefusal; one without a response (network) stays as it is. */
function asRefusal(http: ForgeHttp, err: unknown): unknown {
  const e = err as { status?: number; response?: { headers?: Record<string, string | number | undefined>; data?: unknown }; message?: string };
  if (typeof e?.status !== 'number' || !e.response) return err;
  const headers = new Headers();
  for (const [name, value] of Object.entries(e.response.headers ?? {})) if (value !== undefined) headers.set(name, String(value));
  return refusalOf(http, e.status, headers, String(e.message ?? ''));
}
