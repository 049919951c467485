import { readFile } from 'node:fs/promises';
import type { ConfigFileTracker } from '../../config/tracker-config';
import { ForgeRefusal, refusalOf, sendJson } from '../../forges/clients/forge-client';
import { bodyOf, CreatedIssue, EvidenceFile, IssueRequest, TrackerClient, TrackerHttp } from './tracker-client';

const ISSUE_CREATE = `mutation IssueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier url state { name type } } }
}`;
const FILE_UPLOAD = `mutation FileUpload($contentType: String!, $filename: String!, $size: Int!) {
  fileUpload(contentType: $contentType, filename: $filename, size: $size) { success uploadFile { uploadUrl assetUrl headers { key value } } }
}`;
const ATTACHMENT_CREATE = `mutation AttachmentCreate($input: AttachmentCreateInput!) {
  attachmentCreate(input: $input) { success }
}`;

interface GraphQlAnswer<T> {
  data?: T;
  errors?: { message?: string }[];
}

/**
 * Linear's GraphQL API (the operations @linear/sdk sends: issueCreate, fileUpload then a PUT to the
 * signed upload URL, attachmentCreate), through the pinned fetch; the key goes as Linear asks, the
 * bare key in Authorization.
 */
export class LinearTrackerClient implements TrackerClient {
  constructor(
    private readonly tracker: ConfigFileTracker,
    private readonly http: TrackerHttp,
  ) {}

  async createIssue(issue: IssueRequest): Promise<CreatedIssue> {
    const data = await this.graphql<{ issueCreate?: { issue?: { id: string; url: string; state?: { name?: string } } } }>(ISSUE_CREATE, {
      input: { teamId: issue.project, title: issue.title, description: issue.paragraphs.join('\n\n') },
    });
    const created = data.issueCreate?.issue;
    if (!created?.id) throw new Error('Linear answered issueCreate without an issue');
    return { externalId: created.id, url: created.url, status: created.state?.name ?? null };
  }

  async attach(issue: CreatedIssue, files: EvidenceFile[]): Promise<void> {
    for (const file of files) {
      const data = await this.graphql<{ fileUpload?: { uploadFile?: { uploadUrl: string; assetUrl: string; headers: { key: string; value: string }[] } } }>(FILE_UPLOAD, {
        contentType: file.contentType,
        filename: file.name,
        size: file.size,
      });
      const upload = data.fileUpload?.uploadFile;
      if (!upload) throw new Error('Linear answered fileUpload without an upload URL');
      const headers: Record<string, string> = { 'Content-Type': file.contentType, 'Cache-Control': 'public, max-age=31536000' };
      for (const { key, value } of upload.headers ?? []) headers[key] = value;
      const res = await this.http.fetch(upload.uploadUrl, { method: 'PUT', headers, body: bodyOf(await readFile(file.path)) });
      if (!res.ok) throw refusalOf(this.http, res.status, res.headers, await res.text());
      await this.graphql(ATTACHMENT_CREATE, { input: { issueId: issue.externalId, title: file.name, url: upload.assetUrl } });
    }
  }

  private async graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const answer = (await sendJson(this.http, 'POST', this.tracker.url, { Authorization: this.tracker.token ?? '' }, { query, variables })) as GraphQlAnswer<T> | null;
    // GraphQL answers 200 with errors for a request it refuses (unknown team, bad input): final, like a 422.
    if (answer?.errors?.length) throw new ForgeRefusal(422, new Headers(), `Linear refused: ${this.http.redact(answer.errors.map((e) => e.message).join('; ')).slice(0, 300)}`);
    if (!answer?.data) throw new Error('Linear answered without data');
    return answer.data;
  }
}
