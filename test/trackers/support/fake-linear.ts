import Ajv, { ValidateFunction } from 'ajv';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type LinearOperation = 'IssueCreate' | 'FileUpload' | 'AttachmentCreate' | 'upload';

/** One request the relay made to the fake Linear, with what was wrong with it. */
export interface LinearRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  operation: LinearOperation | null;
  query: string | null;
  variables: Record<string, unknown>;
  /** For an upload (the PUT to the signed URL): its bytes. */
  bytes: Buffer;
  problems: string[];
}

/** A scripted GraphQL answer (`data` or `errors`) for the next request of an operation. */
export interface LinearAnswer {
  data?: unknown;
  errors?: { message: string }[];
}

/*
 * Linear publishes its API as a GraphQL schema (schema.graphql in its SDK's source repository); the
 * npm package @linear/sdk ships only its compiled client (no .graphql file, no introspection JSON:
 * `npm pack @linear/sdk --dry-run` lists dist/*.mjs, *.d.mts and package.json), and the `graphql`
 * package that would validate a document is not a dependency here (docs/integrations.md "Known
 * limits"). So each request is held to what Linear's API reference documents for the three
 * operations the relay sends, written out below: the mutation and its selection, and the
 * variables against the documented input types (IssueCreateInput, fileUpload's arguments,
 * AttachmentCreateInput; required fields, types, no field Linear does not define).
 */
const DOCUMENTED: Record<Exclude<LinearOperation, 'upload'>, { signature: RegExp; field: string; variables: object }> = {
  IssueCreate: {
    signature: /^mutation IssueCreate\(\$input: IssueCreateInput!\)/,
    field: 'issueCreate(input: $input)',
    variables: {
      type: 'object',
      required: ['input'],
      additionalProperties: false,
      properties: {
        input: {
          type: 'object',
          required: ['teamId'],
          additionalProperties: false,
          properties: {
            teamId: { type: 'string', minLength: 1 },
            title: { type: 'string', minLength: 1 },
            description: { type: 'string' },
            priority: { type: 'integer', minimum: 0, maximum: 4 },
            labelIds: { type: 'array', items: { type: 'string' } },
            stateId: { type: 'string' },
            assigneeId: { type: 'string' },
            projectId: { type: 'string' },
          },
        },
      },
    },
  },
  FileUpload: {
    signature: /^mutation FileUpload\(\$contentType: String!, \$filename: String!, \$size: Int!\)/,
    field: 'fileUpload(contentType: $contentType, filename: $filename, size: $size)',
    variables: {
      type: 'object',
      required: ['contentType', 'filename', 'size'],
      additionalProperties: false,
      properties: { contentType: { type: 'string', minLength: 3 }, filename: { type: 'string', minLength: 1 }, size: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 } },
    },
  },
  AttachmentCreate: {
    signature: /^mutation AttachmentCreate\(\$input: AttachmentCreateInput!\)/,
    field: 'attachmentCreate(input: $input)',
    variables: {
      type: 'object',
      required: ['input'],
      additionalProperties: false,
      properties: {
        input: {
          type: 'object',
          required: ['issueId', 'title', 'url'],
          additionalProperties: false,
          properties: { issueId: { type: 'string', minLength: 1 }, title: { type: 'string', minLength: 1 }, url: { type: 'string', pattern: '^https?://' }, subtitle: { type: 'string' } },
        },
      },
    },
  },
};

/** The header Linear's signed upload URL requires, as fileUpload's `headers` give it. */
const UPLOAD_HEADER = { key: 'x-goog-content-length-range', value: '0,104857600' };

/** A Linear GraphQL API (and its signed upload URLs) on 127.0.0.1 that checks every request. */
export class FakeLinear {
  readonly requests: LinearRequest[] = [];
  private readonly scripts = new Map<string, LinearAnswer[]>();
  private readonly validators = new Map<string, ValidateFunction>();
  private server!: Server;
  private next = 1;
  url = '';

  constructor(private readonly apiKey: string) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const [name, op] of Object.entries(DOCUMENTED)) this.validators.set(name, ajv.compile(op.variables));
  }

  /** The GraphQL endpoint (svc.config.json `url`). */
  get endpoint(): string {
    return `${this.url}/graphql`;
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

  script(operation: Exclude<LinearOperation, 'upload'>, ...answers: LinearAnswer[]): void {
    this.scripts.set(operation, [...(this.scripts.get(operation) ?? []), ...answers]);
  }

  of(operation: LinearOperation): LinearRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  problems(): string[] {
    return this.requests.flatMap((r) => r.problems.map((p) => `${r.method} ${r.path} ${r.operation ?? ''}: ${p}`));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0];
    const recorded: LinearRequest = { method: req.method ?? '', path, headers: req.headers, operation: null, query: null, variables: {}, bytes: raw, problems: [] };
    this.requests.push(recorded);
    if (req.method === 'PUT' && path.startsWith('/upload/')) {
      recorded.operation = 'upload';
      if (req.headers[UPLOAD_HEADER.key] !== UPLOAD_HEADER.value) recorded.problems.push(`the signed upload's ${UPLOAD_HEADER.key} header is missing`);
      if (!req.headers['content-type']) recorded.problems.push('Content-Type missing');
      if (!raw.length) recorded.problems.push('empty upload');
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST' || path !== '/graphql') {
      recorded.problems.push('no such endpoint');
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== this.apiKey) recorded.problems.push(`Authorization is ${req.headers.authorization ?? 'missing'} (Linear takes the bare API key)`);
    if (!String(req.headers['content-type']).startsWith('application/json')) recorded.problems.push('Content-Type is not application/json');
    let body: { query?: unknown; variables?: unknown } = {};
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      recorded.problems.push('body is not JSON');
    }
    const query = typeof body.query === 'string' ? body.query : '';
    recorded.query = query;
    recorded.variables = (body.variables ?? {}) as Record<string, unknown>;
    const name = /^\s*mutation\s+(\w+)/.exec(query)?.[1] as Exclude<LinearOperation, 'upload'> | undefined;
    const documented = name ? DOCUMENTED[name] : undefined;
    if (!name || !documented) {
      recorded.problems.push(`not an operation the relay is documented to send: ${query.slice(0, 60)}`);
      return this.answer(res, { errors: [{ message: 'Unknown operation' }] });
    }
    recorded.operation = name;
    if (!documented.signature.test(query.trim())) recorded.problems.push(`${name}'s variables are not declared as documented`);
    if (!query.includes(documented.field)) recorded.problems.push(`${name} does not call ${documented.field}`);
    if (!balanced(query)) recorded.problems.push('unbalanced braces or parentheses');
    const validate = this.validators.get(name)!;
    if (!validate(recorded.variables)) recorded.problems.push(`variables: ${JSON.stringify(validate.errors)}`);
    const scripted = this.scripts.get(name)?.shift();
    this.answer(res, scripted ?? this.plausible(name, recorded.variables));
  }

  private answer(res: ServerResponse, answer: LinearAnswer): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  }

  private plausible(name: Exclude<LinearOperation, 'upload'>, variables: Record<string, unknown>): LinearAnswer {
    const n = this.next++;
    if (name === 'IssueCreate') {
      return { data: { issueCreate: { success: true, issue: { id: randomUUID(), identifier: `ENG-${n}`, url: `https://linear.app/acme/issue/ENG-${n}`, state: { name: 'Todo', type: 'unstarted' } } } } };
    }
    if (name === 'FileUpload') {
      const assetUrl = `https://uploads.linear.app/acme/${n}/${encodeURIComponent(String(variables.filename))}`;
      return { data: { fileUpload: { success: true, uploadFile: { uploadUrl: `${this.url}/upload/${n}`, assetUrl, headers: [UPLOAD_HEADER] } } } };
    }
    return { data: { attachmentCreate: { success: true } } };
  }
}

/** Whether a document's braces and parentheses close in order (a cheap syntax check, no GraphQL parser here). */
function balanced(query: string): boolean {
  const open: string[] = [];
  for (const c of query) {
    if (c === '{' || c === '(') open.push(c);
    else if (c === '}' && open.pop() !== '{') return false;
    else if (c === ')' && open.pop() !== '(') return false;
  }
  return open.length === 0;
}
