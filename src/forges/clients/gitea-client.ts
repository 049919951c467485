import type { ConfigFileForge } from '../../config/forge-config';
import { ChangedCommit, commentIdOf, ForgeClient, ForgeHttp, markedComment, sendJson, StatusPost, titleOf } from './forge-client';

/** Gitea and Forgejo (API v1): `POST /repos/{owner}/{repo}/statuses/{sha}`, GitHub's shape with `token` authorization. */
export class GiteaForgeClient implements ForgeClient {
  constructor(
    private readonly forge: ConfigFileForge,
    private readonly http: ForgeHttp,
  ) {}

  async post(status: StatusPost): Promise<void> {
    await sendJson(this.http, 'POST', `${this.repo(status.repository)}/statuses/${status.commit}`, this.headers(), {
      state: status.state,
      context: status.context,
      description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
  }

  /** Gitea 1.22+ and Forgejo: `GET /repos/{owner}/{repo}/compare/{base}...{head}`. */
  async compare(repository: string, base: string, head: string): Promise<ChangedCommit[]> {
    const url = `${this.repo(repository)}/compare/${encodeURIComponent(base)}...${encodeURIComponent(head)}`;
    const answer = (await sendJson(this.http, 'GET', url, this.headers(), undefined)) as {
      commits?: { sha: string; html_url?: string; commit?: { message?: string; author?: { name?: string } } }[];
    } | null;
    return (answer?.commits ?? []).map((c) => ({ sha: c.sha, title: titleOf(c.commit?.message), author: c.commit?.author?.name ?? null, url: c.html_url ?? null }));
  }

  async findComment(repository: string, pullRequest: number, marker: string): Promise<string | null> {
    return markedComment(await sendJson(this.http, 'GET', `${this.repo(repository)}/issues/${pullRequest}/comments`, this.headers(), undefined), marker);
  }

  async upsertComment(repository: string, pullRequest: number, commentId: string | null, body: string): Promise<string> {
    if (commentId) {
      await sendJson(this.http, 'PATCH', `${this.repo(repository)}/issues/comments/${encodeURIComponent(commentId)}`, this.headers(), { body });
      return commentId;
    }
    return commentIdOf(await sendJson(this.http, 'POST', `${this.repo(repository)}/issues/${pullRequest}/comments`, this.headers(), { body }));
  }

  private repo(repository: string): string {
    const [owner, name] = repository.split('/').map(encodeURIComponent);
    return `${this.forge.url}/repos/${owner}/${name}`;
  }

  private headers(): Record<string, string> {
    return { Authorization: `token ${this.forge.token ?? ''}` };
  }
}
