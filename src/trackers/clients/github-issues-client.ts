import type { ConfigFileTracker } from '../../config/tracker-config';
import { sendJson } from '../../forges/clients/forge-client';
import { CreatedIssue, EvidenceFile, IssueRequest, TrackerClient, TrackerHttp } from './tracker-client';

/**
 * GitHub Issues (REST "Create an issue", "Create an issue comment"). GitHub's API takes no file
 * attachments, so the evidence is listed in a comment with where it is kept on the relay.
 */
export class GitHubIssuesClient implements TrackerClient {
  constructor(
    private readonly tracker: ConfigFileTracker,
    private readonly http: TrackerHttp,
  ) {}

  async createIssue(issue: IssueRequest): Promise<CreatedIssue> {
    const created = (await sendJson(this.http, 'POST', `${this.tracker.url}/repos/${issue.project}/issues`, this.headers(), {
      title: issue.title,
      body: issue.paragraphs.join('\n\n'),
    })) as { number?: unknown; html_url?: unknown; state?: unknown } | null;
    if (typeof created?.number !== 'number') throw new Error('GitHub answered a created issue without a number');
    return {
      externalId: `${issue.project.toLowerCase()}#${created.number}`,
      url: typeof created.html_url === 'string' ? created.html_url : '',
      status: typeof created.state === 'string' ? created.state : null,
    };
  }

  async attach(issue: CreatedIssue, files: EvidenceFile[], note: string): Promise<void> {
    if (!files.length) return;
    const [repository, number] = issue.externalId.split('#');
    const list = files.map((f) => `- ${f.name} (${f.contentType}, ${f.size} bytes)`).join('\n');
    await sendJson(this.http, 'POST', `${this.tracker.url}/repos/${repository}/issues/${number}/comments`, this.headers(), {
      body: `Evidence kept on the relay (GitHub takes no attachments through its API):\n${list}\n\n${note}`,
    });
  }

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.tracker.token}`, Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };
  }
}
