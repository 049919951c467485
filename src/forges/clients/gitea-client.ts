import type { ConfigFileForge } from '../../config/forge-config';
import { ForgeClient, postJson, StatusPost } from './forge-client';

/** Gitea and Forgejo (API v1): `POST /repos/{owner}/{repo}/statuses/{sha}`, GitHub's shape with `token` authorization. */
export class GiteaForgeClient implements ForgeClient {
  constructor(
    private readonly forge: ConfigFileForge,
    private readonly fetchImpl: typeof fetch,
  ) {}

  post(status: StatusPost): Promise<void> {
    const [owner, repo] = status.repository.split('/').map(encodeURIComponent);
    const url = `${this.forge.url}/repos/${owner}/${repo}/statuses/${status.commit}`;
    return postJson(this.fetchImpl, url, { Authorization: `token ${this.forge.token ?? ''}` }, {
      state: status.state,
      context: status.context,
      description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
  }
}
