import { readFile } from 'node:fs/promises';
import type { ConfigFileTracker } from '../../config/tracker-config';
import { refusalOf, sendJson } from '../../forges/clients/forge-client';
import { bodyOf, CreatedIssue, EvidenceFile, IssueRequest, multipartFile, TrackerClient, TrackerHttp } from './tracker-client';

/**
 * Jira Cloud (REST v3: the description is an Atlassian Document Format document, auth Basic with
 * the account's e-mail and API token) and Jira Data Center / Server (REST v2: the description is
 * text, auth Bearer with a personal access token). Written against Atlassian's REST reference
 * ("Issues: Create issue", "Issue attachments: Add attachment") rather than through jira.js, whose
 * axios would bypass the relay's pinned, SSRF-checked fetch (docs/dependencies.md).
 */
export class JiraTrackerClient implements TrackerClient {
  private readonly api: string;

  constructor(
    private readonly tracker: ConfigFileTracker,
    private readonly http: TrackerHttp,
  ) {
    this.api = `${tracker.url}/rest/api/${tracker.type === 'jira' ? 3 : 2}`;
  }

  async createIssue(issue: IssueRequest): Promise<CreatedIssue> {
    const description = this.tracker.type === 'jira' ? adf(issue.paragraphs) : issue.paragraphs.join('\n\n');
    const created = (await sendJson(this.http, 'POST', `${this.api}/issue`, this.auth(), {
      fields: { project: { key: issue.project }, summary: issue.title, issuetype: { name: issue.issueType }, description },
    })) as { key?: unknown } | null;
    if (typeof created?.key !== 'string') throw new Error('Jira answered a created issue without a key');
    return { externalId: created.key, url: `${this.tracker.url}/browse/${encodeURIComponent(created.key)}`, status: null };
  }

  async attach(issue: CreatedIssue, files: EvidenceFile[]): Promise<void> {
    for (const file of files) {
      const { body, contentType } = multipartFile('file', file, await readFile(file.path));
      const res = await this.http.fetch(`${this.api}/issue/${encodeURIComponent(issue.externalId)}/attachments`, {
        method: 'POST',
        // Jira refuses a multipart POST without it (its XSRF check).
        headers: { ...this.auth(), 'X-Atlassian-Token': 'no-check', 'Content-Type': contentType, Accept: 'application/json' },
        body: bodyOf(body),
      });
      const text = await res.text();
      if (!res.ok) throw refusalOf(this.http, res.status, res.headers, text);
    }
  }

  private auth(): Record<string, string> {
    const { email, token } = this.tracker;
    return { Authorization: email ? `Basic ${Buffer.from(`${email}:${token}`).toString('base64')}` : `Bearer ${token}` };
  }
}

/** Paragraphs as an ADF document (Jira Cloud v3 takes no plain text description). */
function adf(paragraphs: string[]): unknown {
  return {
    type: 'doc',
    version: 1,
    content: paragraphs.filter((p) => p.length).map((p) => ({ type: 'paragraph', content: [{ type: 'text', text: p }] })),
  };
}
