import Ajv, { ValidateFunction } from 'ajv';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the relay made to the fake Jira, with what was wrong with it. */
export interface JiraRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** For an attachment upload: the parts of the multipart body. */
  files: { field: string; filename: string; contentType: string; bytes: Buffer }[];
  operation: 'createIssue' | 'addAttachment' | null;
  problems: string[];
}

/** A scripted answer for the next request of an operation. */
export interface JiraAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Hold the answer until this resolves (a Jira that is slow when the relay is killed). */
  hold?: Promise<void>;
}

/*
 * Atlassian publishes the Jira platform's OpenAPI description (swagger-v3.v3.json) on its developer
 * site only: no package on the npm registry (the only registry reachable here) ships it (searched
 * for jira/atlassian openapi/swagger packages: atlassian-openapi and @atlassian/atlassian-openapi
 * are tooling without the document; jira.js, @atlassian-dc-mcp/jira and other clients ship none).
 * So the requests are held to the schemas Atlassian documents for these two operations, as
 * jira.js 5.4.0 (MIT, generated from that description) types them: IssueUpdateDetails
 * (`dist/esm/types/version3/models/issueUpdateDetails.d.ts`, `fields` with the documented system
 * fields project / summary / issuetype / description) and "Add attachment" (multipart/form-data,
 * field `file`, header X-Atlassian-Token: no-check, `version3/issueAttachments.cjs`). REST v3
 * (Cloud) takes the description as an Atlassian Document Format document; v2 (Data Center) as text.
 */
const ADF_TEXT = { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 } } };
const ADF_DOC = {
  type: 'object',
  required: ['type', 'version', 'content'],
  additionalProperties: false,
  properties: {
    type: { const: 'doc' },
    version: { const: 1 },
    content: {
      type: 'array',
      items: { type: 'object', required: ['type', 'content'], properties: { type: { const: 'paragraph' }, content: { type: 'array', items: ADF_TEXT } } },
    },
  },
};
const issueUpdateDetails = (description: object) => ({
  type: 'object',
  required: ['fields'],
  additionalProperties: false,
  properties: {
    transition: { type: 'object' },
    update: { type: 'object' },
    historyMetadata: { type: 'object' },
    properties: { type: 'array' },
    fields: {
      type: 'object',
      required: ['project', 'summary', 'issuetype'],
      properties: {
        project: { type: 'object', minProperties: 1, properties: { key: { type: 'string', minLength: 1 }, id: { type: 'string' } }, additionalProperties: false },
        summary: { type: 'string', minLength: 1, maxLength: 255 },
        issuetype: { type: 'object', minProperties: 1, properties: { name: { type: 'string' }, id: { type: 'string' } }, additionalProperties: false },
        description,
      },
    },
  },
});

/** A Jira on 127.0.0.1 that answers "Create issue" and "Add attachment" of REST v3 (Cloud) or v2 (Data Center) and checks every request. */
export class FakeJira {
  readonly requests: JiraRequest[] = [];
  private readonly scripts = new Map<string, JiraAnswer[]>();
  private readonly validate: ValidateFunction;
  private server!: Server;
  private next = 1;
  url = '';

  constructor(
    readonly version: 2 | 3,
    private readonly expectedAuthorization: string,
  ) {
    this.validate = new Ajv({ strict: false, allErrors: true }).compile(issueUpdateDetails(version === 3 ? ADF_DOC : { type: 'string' }));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  script(operation: 'createIssue' | 'addAttachment', ...answers: JiraAnswer[]): void {
    this.scripts.set(operation, [...(this.scripts.get(operation) ?? []), ...answers]);
  }

  of(operation: 'createIssue' | 'addAttachment'): JiraRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  problems(): string[] {
    return this.requests.flatMap((r) => r.problems.map((p) => `${r.method} ${r.path}: ${p}`));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0];
    const api = `/rest/api/${this.version}`;
    const problems: string[] = [];
    if (req.headers.authorization !== this.expectedAuthorization) problems.push(`Authorization is ${req.headers.authorization ?? 'missing'}`);
    let operation: JiraRequest['operation'] = null;
    let body: unknown;
    let files: JiraRequest['files'] = [];
    if (req.method === 'POST' && path === `${api}/issue`) {
      operation = 'createIssue';
      try {
        body = JSON.parse(raw.toString('utf8'));
        if (!this.validate(body)) problems.push(`body: ${JSON.stringify(this.validate.errors)}`);
      } catch {
        problems.push('body is not JSON');
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) problems.push('Content-Type is not application/json');
    } else if (req.method === 'POST' && new RegExp(`^${api}/issue/[A-Z][A-Z0-9]*-\\d+/attachments$`).test(path)) {
      operation = 'addAttachment';
      if (req.headers['x-atlassian-token'] !== 'no-check') problems.push('X-Atlassian-Token: no-check missing (Jira refuses the upload as XSRF)');
      files = parseMultipart(String(req.headers['content-type']), raw, problems);
      if (!files.length || files.some((f) => f.field !== 'file')) problems.push('the upload must be parts named "file"');
    } else problems.push('no such operation');
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, body, files, operation, problems });
    const scripted = operation ? this.scripts.get(operation)?.shift() : undefined;
    if (scripted?.hold) await scripted.hold;
    const answer: JiraAnswer = scripted ?? (operation ? this.plausible(operation, path, files) : { status: 404, body: { errorMessages: ['Not found'] } });
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }

  private plausible(operation: 'createIssue' | 'addAttachment', path: string, files: JiraRequest['files']): JiraAnswer {
    const id = this.next++;
    if (operation === 'createIssue') return { status: 201, body: { id: String(10000 + id), key: `MOB-${id}`, self: `${this.url}/rest/api/${this.version}/issue/${10000 + id}` } };
    return { status: 200, body: files.map((f) => ({ id: String(id), filename: f.filename, size: f.bytes.length, mimeType: f.contentType, self: `${this.url}${path}` })) };
  }
}

/** The parts of a multipart/form-data body (the few the relay sends: one file each). */
function parseMultipart(contentType: string, raw: Buffer, problems: string[]): JiraRequest['files'] {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!contentType.startsWith('multipart/form-data') || !boundary) {
    problems.push('Content-Type is not multipart/form-data with a boundary');
    return [];
  }
  const delimiter = Buffer.from(`--${boundary}`);
  const files: JiraRequest['files'] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) {
      problems.push('multipart body not closed');
      break;
    }
    const part = raw.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headerEnd).toString('utf8');
    const field = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1] ?? '';
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '';
    files.push({ field, filename, contentType: type, bytes: Buffer.from(part.subarray(headerEnd + 4)) });
    at = next;
  }
  return files;
}
