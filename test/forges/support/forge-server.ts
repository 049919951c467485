import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createPublicKey, createVerify, KeyObject } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ForgeKind = 'github' | 'gitlab' | 'gitea';

/** One request the relay made, as the forge saw it, with what the description said of it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The operation it matched (GitHub: the OpenAPI operationId), or null. */
  operation: string | null;
  /** Why it does not conform (unknown route, wrong body, missing credential), empty when it does. */
  problems: string[];
}

/** A scripted answer for the next request(s) to an operation; anything unscripted gets a plausible 201. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The answer's JSON, or made from the request (a forge that echoes what it was sent in its error). */
  body?: unknown | ((request: RecordedRequest) => unknown);
  /** Hold the answer until this promise resolves (a forge that is slow or down). */
  hold?: Promise<void>;
  /** Only a request whose path holds this takes the answer (another test's late status must not). */
  forPath?: string;
}

interface Operation {
  id: string;
  method: string;
  /** Path template, `{name}` for a parameter (GitLab's `:id` written the same way). */
  template: string;
  pattern: RegExp;
  validate: ValidateFunction | null;
  auth: (headers: IncomingMessage['headers']) => string | null;
}

/**
 * A local forge on 127.0.0.1 that speaks just enough of GitHub's, GitLab's or Gitea's API for the
 * relay's statuses, records every request and checks each one:
 * - GitHub: against GitHub's published OpenAPI description (`@octokit/openapi`,
 *   api.github.com.json): the route must be an operation of it, the body must validate against the
 *   operation's request-body schema (Ajv, OpenAPI 3.0 `nullable` understood), and an App's JWT
 *   must verify with the App's public key (RS256, `iss` = app id, at most 10 minutes long);
 * - GitLab and Gitea publish no OpenAPI description on the npm registry: their requests are held to
 *   the shapes their API documentation gives (GitLab "Commits API: set the pipeline status of a
 *   commit"; Gitea's swagger `CreateStatusOption`), written out below.
 */
export class TestForge {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private server!: Server;
  private operations: Operation[] = [];
  url = '';
  private nextId = 1;

  constructor(
    readonly kind: ForgeKind,
    private readonly options: { token?: string; appId?: string; publicKeyPem?: string } = {},
  ) {}

  /** Listens on `host` (loopback unless a test puts the forge on its LAN: support/lan-forge.ts). */
  async start(host = '127.0.0.1'): Promise<this> {
    this.operations = operationsFor(this.kind, this.options);
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://${host}:${port}${this.kind === 'github' ? '' : this.kind === 'gitlab' ? '/api/v4' : '/api/v1'}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The next answers for an operation, in order. */
  script(operation: string, ...answers: ScriptedAnswer[]): void {
    this.scripts.set(operation, [...(this.scripts.get(operation) ?? []), ...answers]);
  }

  /** Requests of one operation. */
  of(operation: string): RecordedRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  /** Every problem found in any request so far. */
  problems(): string[] {
    return this.requests.flatMap((r) => r.problems.map((p) => `${r.method} ${r.path}: ${p}`));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    const problems: string[] = [];
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('body is not JSON');
      }
    }
    const path = (req.url ?? '').split('?')[0];
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://forge').searchParams);
    const prefix = new URL(this.url).pathname.replace(/\/$/, '');
    const local = path.startsWith(prefix) ? path.slice(prefix.length) : path;
    const op = this.operations.find((o) => o.method === req.method && o.pattern.test(local)) ?? null;
    if (!op) problems.push('no such operation in the API description');
    else {
      const authProblem = op.auth(req.headers);
      if (authProblem) problems.push(authProblem);
      if (op.validate && !op.validate(body ?? {})) problems.push(`body: ${JSON.stringify(op.validate.errors)}`);
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path, query, headers: req.headers, body, operation: op?.id ?? null, problems };
    this.requests.push(recorded);
    const scripted = op ? this.takeScripted(op.id, path) : undefined;
    if (scripted?.hold) await scripted.hold;
    const answer = scripted ?? (op ? { status: 201, body: this.plausible(op.id, body, local) } : { status: 404, body: { message: 'Not Found' } });
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
    const answerBody = typeof answer.body === 'function' ? answer.body(recorded) : answer.body;
    res.end(answerBody === undefined ? '' : JSON.stringify(answerBody));
  }

  private takeScripted(operation: string, path: string): ScriptedAnswer | undefined {
    const answers = this.scripts.get(operation) ?? [];
    const at = answers.findIndex((a) => a.forPath === undefined || path.includes(a.forPath));
    return at < 0 ? undefined : answers.splice(at, 1)[0];
  }

  private plausible(operation: string, body: unknown, path: string): unknown {
    if (/list-comments|list-notes/.test(operation)) return [];
    const id = this.nextId++;
    if (operation === 'issues/create') return { id, number: id, state: 'open', html_url: `https://github.example${path.replace(/^\/repos/, '')}/${id}`, ...(body as object) };
    if (operation === 'apps/create-installation-access-token') return { token: `ghs_test${id}`, expires_at: new Date(Date.now() + 3_600_000).toISOString() };
    return { id, ...(body as object) };
  }
}

/** GitHub's description, loaded once per test file (13 MB of JSON). */
let githubSpec: { paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { schema: unknown }> } }>>; components: unknown } | null = null;

function operationsFor(kind: ForgeKind, options: { token?: string; appId?: string; publicKeyPem?: string }): Operation[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  if (kind === 'github') {
    githubSpec ??= require('@octokit/openapi/generated/api.github.com.json');
    const spec = githubSpec!;
    const publicKey = options.publicKeyPem ? createPublicKey(options.publicKeyPem) : null;
    const used: [string, string][] = [
      ['post', '/repos/{owner}/{repo}/statuses/{sha}'],
      ['post', '/repos/{owner}/{repo}/check-runs'],
      ['post', '/app/installations/{installation_id}/access_tokens'],
      ['post', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
      // Issue trackers' "Report issue" to GitHub Issues (test/trackers).
      ['post', '/repos/{owner}/{repo}/issues'],
      ['patch', '/repos/{owner}/{repo}/issues/comments/{comment_id}'],
      ['get', '/repos/{owner}/{repo}/compare/{basehead}'],
      ['get', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
    ];
    return used.map(([method, template]) => {
      const op = spec.paths[template][method];
      const schema = op.requestBody?.content['application/json']?.schema;
      const isAppRoute = template.startsWith('/app/');
      return {
        id: op.operationId,
        method: method.toUpperCase(),
        template,
        pattern: templatePattern(template),
        validate: schema ? ajv.compile(deref(schema, spec) as object) : null,
        auth: (headers) => (isAppRoute ? jwtProblem(headers, options.appId, publicKey) : bearerProblem(headers, options.token)),
      };
    });
  }
  if (kind === 'gitlab') {
    return [
      {
        id: 'gitlab/post-commit-status',
        method: 'POST',
        template: '/projects/{id}/statuses/{sha}',
        pattern: /^\/projects\/[^/]+\/statuses\/[0-9a-f]{40,64}$/,
        validate: ajv.compile({
          type: 'object',
          required: ['state'],
          properties: {
            state: { enum: ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] },
            name: { type: 'string', maxLength: 255 },
            context: { type: 'string' },
            ref: { type: 'string' },
            target_url: { type: 'string', maxLength: 255, pattern: '^https?://' },
            description: { type: 'string', maxLength: 255 },
            coverage: { type: 'number' },
            pipeline_id: { type: 'integer' },
          },
          additionalProperties: false,
        }),
        auth: (headers) => (headers['private-token'] === options.token ? null : 'PRIVATE-TOKEN missing or wrong'),
      },
      {
        id: 'gitlab/compare',
        method: 'GET',
        template: '/projects/{id}/repository/compare',
        pattern: /^\/projects\/[^/]+\/repository\/compare$/,
        validate: null,
        auth: (headers) => (headers['private-token'] === options.token ? null : 'PRIVATE-TOKEN missing or wrong'),
      },
      ...noteOperations(ajv, 'gitlab', /^\/projects\/[^/]+\/merge_requests\/\d+\/notes$/, 'PUT', /^\/projects\/[^/]+\/merge_requests\/\d+\/notes\/\d+$/, (headers) =>
        headers['private-token'] === options.token ? null : 'PRIVATE-TOKEN missing or wrong',
      ),
    ];
  }
  return [
    {
      id: 'gitea/repoCreateStatus',
      method: 'POST',
      template: '/repos/{owner}/{repo}/statuses/{sha}',
      pattern: /^\/repos\/[^/]+\/[^/]+\/statuses\/[0-9a-f]{40,64}$/,
      validate: ajv.compile({
        type: 'object',
        required: ['state'],
        properties: {
          state: { enum: ['pending', 'success', 'error', 'failure', 'warning'] },
          context: { type: 'string' },
          description: { type: 'string' },
          target_url: { type: 'string' },
        },
        additionalProperties: false,
      }),
      auth: (headers) => (headers.authorization === `token ${options.token}` ? null : 'Authorization: token … missing or wrong'),
    },
    {
      id: 'gitea/repoCompareDiff',
      method: 'GET',
      template: '/repos/{owner}/{repo}/compare/{basehead}',
      pattern: /^\/repos\/[^/]+\/[^/]+\/compare\/[^/]+$/,
      validate: null,
      auth: (headers) => (headers.authorization === `token ${options.token}` ? null : 'Authorization: token … missing or wrong'),
    },
    ...noteOperations(ajv, 'gitea', /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/, 'PATCH', /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+$/, (headers) =>
      headers.authorization === `token ${options.token}` ? null : 'Authorization: token … missing or wrong',
    ),
  ];
}

/**
 * Creating and editing a comment (GitLab: a merge request note, "Notes API"; Gitea: an issue
 * comment, swagger `CreateIssueCommentOption` / `EditIssueCommentOption`): `{ body }` both ways.
 */
function noteOperations(
  ajv: Ajv,
  kind: 'gitlab' | 'gitea',
  create: RegExp,
  editMethod: string,
  edit: RegExp,
  auth: Operation['auth'],
): Operation[] {
  const schema = { type: 'object', required: ['body'], properties: { body: { type: 'string', minLength: 1 } }, additionalProperties: false };
  const list = kind === 'gitlab' ? 'gitlab/list-notes' : 'gitea/list-comments';
  return [
    { id: list, method: 'GET', template: create.source, pattern: create, validate: null, auth },
    { id: `${kind}/create-comment`, method: 'POST', template: create.source, pattern: create, validate: ajv.compile(schema), auth },
    { id: `${kind}/edit-comment`, method: editMethod, template: edit.source, pattern: edit, validate: ajv.compile(schema), auth },
  ];
}

function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

/** Resolves `#/components/...` references (the request bodies the relay sends are small trees). */
function deref(node: unknown, root: unknown, seen = new Set<string>()): unknown {
  if (Array.isArray(node)) return node.map((n) => deref(n, root, seen));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref) {
    if (seen.has(ref)) return {};
    const target = ref.slice(2).split('/').reduce<unknown>((n, key) => (n as Record<string, unknown>)[key], root);
    return deref(target, root, new Set([...seen, ref]));
  }
  const resolved = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(v, root, seen)]));
  // OpenAPI 3.0 `nullable` beside `oneOf` without a `type` (issues/create's milestone): Ajv takes it only with a type.
  if (resolved.nullable === true && resolved.type === undefined) {
    const { nullable: _nullable, ...rest } = resolved;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return resolved;
}

function bearerProblem(headers: IncomingMessage['headers'], token: string | undefined): string | null {
  const auth = headers.authorization ?? '';
  if (token) return auth === `token ${token}` || auth === `Bearer ${token}` ? null : `Authorization missing or wrong (${auth || 'none'})`;
  return /^(token|Bearer) ghs_test\d+$/.test(auth) ? null : `installation token missing (${auth || 'none'})`;
}

/** A GitHub App JWT: RS256 over header.payload with the App's key, `iss` the app id, exp − iat ≤ 600 s, not expired. */
function jwtProblem(headers: IncomingMessage['headers'], appId: string | undefined, key: KeyObject | null): string | null {
  const match = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(headers.authorization ?? '');
  if (!match || !key) return 'App JWT missing';
  const [, head, payload, signature] = match;
  const header = JSON.parse(Buffer.from(head, 'base64url').toString());
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  if (header.alg !== 'RS256') return `JWT alg ${header.alg}`;
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${head}.${payload}`);
  if (!verifier.verify(key, Buffer.from(signature, 'base64url'))) return 'JWT signature does not verify';
  if (String(claims.iss) !== appId) return `JWT iss ${claims.iss}`;
  if (claims.exp - claims.iat > 600) return 'JWT longer than 10 minutes';
  if (claims.exp * 1000 < Date.now()) return 'JWT expired';
  return null;
}
