import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received, after its checks. */
export interface SlackCall {
  method: string;
  body: Record<string, unknown>;
  at: number;
  /** The ts chat.postMessage gave the message. */
  ts?: string;
}

/** Block Kit block types a message may hold (https://api.slack.com/reference/block-kit/blocks). */
const BLOCK_TYPES = new Set(['section', 'actions', 'context', 'divider', 'header', 'image', 'rich_text']);

/**
 * A fake Slack on loopback: the Web API under `/api/<method>` (chat.postMessage, chat.update,
 * users.info) held to what Slack's reference requires of each (the bot token as Bearer, the
 * required arguments, Block Kit's block shapes, a ts chat.update can find), response URLs under
 * `/hooks/…`, and Teams webhooks under `/teams/<name>` held to the shape of a message with an
 * Adaptive Card. Every deviation is kept in `problems()`; `script` makes the next calls of a method fail.
 */
export class FakeSlack {
  private server: Server | null = null;
  private port = 0;
  private host = '127.0.0.1';
  readonly calls: SlackCall[] = [];
  readonly responses: { path: string; body: Record<string, unknown> }[] = [];
  readonly teams: { name: string; query: string; body: Record<string, unknown> }[] = [];
  private readonly issues: string[] = [];
  private readonly messages = new Map<string, { channel: string; text: unknown; blocks: unknown }>();
  private readonly scripted = new Map<string, { status: number; body: unknown }[]>();
  private readonly users = new Map<string, string>();
  private seq = 0;

  constructor(private readonly token: string) {}

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  /** A Slack user and the e-mail users.info gives for them. */
  user(id: string, email: string): void {
    this.users.set(id, email);
  }

  script(method: string, ...answers: { status: number; body: unknown }[]): void {
    this.scripted.set(method, [...(this.scripted.get(method) ?? []), ...answers]);
  }

  of(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  message(channel: string, ts: string): { text: unknown; blocks: unknown } | undefined {
    return this.messages.get(`${channel}/${ts}`);
  }

  problems(): string[] {
    return [...this.issues];
  }

  async start(port = 0, host = '127.0.0.1'): Promise<void> {
    this.host = host;
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port || this.port, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const problem = (text: string) => {
      this.issues.push(text);
      answer(400, { ok: false, error: 'invalid_arguments', problem: text });
    };
    if (req.method !== 'POST') return problem(`${req.method} ${url.pathname}: Slack and Teams take POST`);
    const body = parseBody(req.headers['content-type'], raw);
    if (!body) return problem(`${url.pathname}: a body that is neither JSON nor a form (${req.headers['content-type']})`);

    if (url.pathname.startsWith('/hooks/')) {
      if (body.response_type !== 'ephemeral' || typeof body.text !== 'string') return problem(`response URL: expected { response_type: "ephemeral", text }`);
      this.responses.push({ path: url.pathname, body });
      return answer(200, { ok: true });
    }
    if (url.pathname.startsWith('/teams/')) {
      const card = teamsProblem(body);
      if (card) return problem(`Teams: ${card}`);
      this.teams.push({ name: url.pathname.slice('/teams/'.length), query: url.search, body });
      res.writeHead(202).end();
      return;
    }
    const method = url.pathname.replace(/^\/api\//, '');
    if (req.headers.authorization !== `Bearer ${this.token}`) return answer(200, { ok: false, error: 'invalid_auth' });
    const scripted = this.scripted.get(method)?.shift();
    if (scripted) return answer(scripted.status, scripted.body);
    switch (method) {
      case 'chat.postMessage': {
        const missing = messageProblem(body);
        if (missing) return problem(`chat.postMessage: ${missing}`);
        const ts = `${1700000000 + ++this.seq}.000100`;
        this.messages.set(`${body.channel}/${ts}`, { channel: String(body.channel), text: body.text, blocks: body.blocks });
        this.calls.push({ method, body, at: Date.now(), ts });
        return answer(200, { ok: true, channel: body.channel, ts, message: { text: body.text } });
      }
      case 'chat.update': {
        const missing = messageProblem(body) ?? (typeof body.ts !== 'string' ? 'ts is required' : null);
        if (missing) return problem(`chat.update: ${missing}`);
        const key = `${body.channel}/${body.ts}`;
        if (!this.messages.has(key)) return answer(200, { ok: false, error: 'message_not_found' });
        this.messages.set(key, { channel: String(body.channel), text: body.text, blocks: body.blocks });
        this.calls.push({ method, body, at: Date.now() });
        return answer(200, { ok: true, channel: body.channel, ts: body.ts });
      }
      case 'users.info': {
        if (typeof body.user !== 'string') return problem('users.info: user is required');
        this.calls.push({ method, body, at: Date.now() });
        const email = this.users.get(body.user);
        if (!email) return answer(200, { ok: false, error: 'user_not_found' });
        return answer(200, { ok: true, user: { id: body.user, deleted: false, profile: { email } } });
      }
      default:
        return answer(200, { ok: false, error: 'unknown_method' });
    }
  }
}

function parseBody(type: string | undefined, raw: string): Record<string, unknown> | null {
  try {
    if (type?.startsWith('application/json')) return JSON.parse(raw) as Record<string, unknown>;
    if (type?.startsWith('application/x-www-form-urlencoded')) {
      // @slack/web-api sends forms, arrays and objects as JSON text.
      const out: Record<string, unknown> = {};
      for (const [k, v] of new URLSearchParams(raw)) out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
      return out;
    }
  } catch {
    return null;
  }
  return null;
}

/** chat.postMessage / chat.update: a channel, and text or blocks; blocks of known types, buttons with action ids. */
function messageProblem(body: Record<string, unknown>): string | null {
  if (typeof body.channel !== 'string' || !body.channel) return 'channel is required';
  if (typeof body.text !== 'string' && !Array.isArray(body.blocks)) return 'text or blocks is required';
  if (body.blocks === undefined) return null;
  if (!Array.isArray(body.blocks) || body.blocks.length > 50) return 'blocks must be an array of at most 50';
  for (const block of body.blocks as Record<string, unknown>[]) {
    if (!BLOCK_TYPES.has(String(block.type))) return `unknown block type ${String(block.type)}`;
    if (block.type === 'actions') {
      const elements = block.elements as Record<string, unknown>[];
      if (!Array.isArray(elements) || !elements.length || elements.length > 25) return 'an actions block needs 1 to 25 elements';
      for (const e of elements) {
        const text = e.text as { type?: string; text?: string } | undefined;
        if (e.type !== 'button' || typeof e.action_id !== 'string' || text?.type !== 'plain_text' || !text.text) return 'a button needs action_id and plain_text text';
        if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger') return `a button style is primary or danger, got ${String(e.style)}`;
      }
    }
    if (block.type === 'section' && !block.text && !block.fields) return 'a section needs text or fields';
    if (block.type === 'section' && Array.isArray(block.fields) && block.fields.length > 10) return 'a section has at most 10 fields';
  }
  return null;
}

/** A Teams webhook message: `type: message` with one Adaptive Card attachment. */
function teamsProblem(body: Record<string, unknown>): string | null {
  if (body.type !== 'message') return 'type must be "message"';
  const attachments = body.attachments as Record<string, unknown>[] | undefined;
  if (!Array.isArray(attachments) || attachments.length !== 1) return 'one attachment expected';
  const [a] = attachments;
  if (a.contentType !== 'application/vnd.microsoft.card.adaptive') return 'the attachment must be an Adaptive Card';
  const card = a.content as Record<string, unknown>;
  if (card?.type !== 'AdaptiveCard' || typeof card.version !== 'string' || !Array.isArray(card.body)) return 'content must be { type: AdaptiveCard, version, body[] }';
  return null;
}
