import type { ConfigFileForge } from '../../config/forge-config';
import { ChangedCommit, commentIdOf, ForgeClient, ForgeHttp, markedComment, sendJson, StatusPost, titleOf } from './forge-client';

/** GitLab's names for the relay's states (its `pending` means "not started": a review under way is `running`). */
const STATES = { pending: 'running', success: 'success', failure: 'failed' } as const;

/** GitLab (gitlab.com and self-managed, API v4): `POST /projects/:id/statuses/:sha`, the project named by its URL-encoded path. */
export class GitLabForgeClient implements ForgeClient {
  constructor(
    private readonly forge: ConfigFileForge,
    private readonly http: ForgeHttp,
  ) {}

  async post(status: StatusPost): Promise<void> {
    const url = `${this.project(status.repository)}/statuses/${status.commit}`;
    await sendJson(this.http, 'POST', url, this.headers(), {
      state: STATES[status.state],
      name: status.context,
      description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
  }

  async compare(repository: string, base: string, head: string): Promise<ChangedCommit[]> {
    const url = `${this.project(repository)}/repository/compare?from=${encodeURIComponent(base)}&to=${encodeURIComponent(head)}`;
    const answer = (await sendJson(this.http, 'GET', url, this.headers(), undefined)) as { commits?: { id: string; title?: string; message?: string; author_name?: string; web_url?: string }[] } | null;
    return (answer?.commits ?? []).map((c) => ({ sha: c.id, title: c.title ?? titleOf(c.message), author: c.author_name ?? null, url: c.web_url ?? null }));
  }

  async findComment(repository: string, pullRequest: number, marker: string): Promise<string | null> {
    const url = `${this.project(repository)}/merge_requests/${pullRequest}/notes?per_page=100&sort=asc`;
    return markedComment(await sendJson(this.http, 'GET', url, this.headers(), undefined), marker);
  }

  /** A note on the merge request (`pull_request` is its iid). */
  async upsertComment(repository: string, pullRequest: number, commentId: string | null, body: string): Promise<string> {
    const notes = `${this.project(repository)}/merge_requests/${pullRequest}/notes`;
    if (commentId) {
      await sendJson(this.http, 'PUT', `${notes}/${encodeURIComponent(commentId)}`, this.headers(), { body });
      return commentId;
    }
    return commentIdOf(await sendJson(this.http, 'POST', notes, this.headers(), { body }));
  }

  private project(repository: string): string {
    return `${this.forge.url}/projects/${encodeURIComponent(repository)}`;
  }

  private headers(): Record<string, string> {
    return { 'PRIVATE-TOKEN': this.forge.token ?? '' };
  }
}
