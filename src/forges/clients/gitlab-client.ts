import type { ConfigFileForge } from '../../config/forge-config';
import { ForgeClient, postJson, StatusPost } from './forge-client';

/** GitLab's names for the relay's states (its `pending` means "not started": a review under way is `running`). */
const STATES = { pending: 'running', success: 'success', failure: 'failed' } as const;

/** GitLab (gitlab.com and self-managed, API v4): `POST /projects/:id/statuses/:sha`, the project named by its URL-encoded path. */
export class GitLabForgeClient implements ForgeClient {
  constructor(
    private readonly forge: ConfigFileForge,
    private readonly fetchImpl: typeof fetch,
  ) {}

  post(status: StatusPost): Promise<void> {
    const url = `${this.forge.url}/projects/${encodeURIComponent(status.repository)}/statuses/${status.commit}`;
    return postJson(this.fetchImpl, url, { 'PRIVATE-TOKEN': this.forge.token ?? '' }, {
      state: STATES[status.state],
      name: status.context,
      description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
  }
}
