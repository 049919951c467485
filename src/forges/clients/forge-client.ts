import type { ConfigFileForge } from '../../config/forge-config';
import { OutboundRefusal } from '../../outbox/retry-policy';
import type { StatusState } from '../outbox/forge-status.entity';

/** One status to post, as the outbox holds it. */
export interface StatusPost {
  buildId: number;
  repository: string;
  commit: string;
  context: string;
  state: StatusState;
  description: string;
  targetUrl: string | null;
  /** Markdown for a GitHub App's check run. */
  summary: string | null;
}

/** One commit of "what changed". */
export interface ChangedCommit {
  sha: string;
  /** The first line of its message. */
  title: string;
  author: string | null;
  url: string | null;
}

/** The first line of a commit message. */
export function titleOf(message: string | undefined | null): string {
  return (message ?? '').split(/\r?\n/)[0].trim();
}

/** The forge answered, but not with a 2xx: its status and headers decide whether to try again. */
export class ForgeRefusal extends OutboundRefusal {}

/** Posts statuses to one kind of forge; throws ForgeRefusal for a non-2xx answer, anything else for a network error. */
export interface ForgeClient {
  post(status: StatusPost): Promise<void>;
  /** The commits after `base` up to `head`, oldest first (the forge's compare API). */
  compare(repository: string, base: string, head: string): Promise<ChangedCommit[]>;
  /** Creates the pull (merge) request's comment and returns its id, or edits comment `commentId` in place. */
  upsertComment(repository: string, pullRequest: number, commentId: string | null, body: string): Promise<string>;
  /** The id of the pull request's first comment whose body contains `marker` (the first page of 100), or null. */
  findComment(repository: string, pullRequest: number, marker: string): Promise<string | null>;
}

/** `github https://api.github.com`: names a configured forge in logs and the delivery log, never with a credential. */
export function forgeLabel(forge: Pick<ConfigFileForge, 'type' | 'url'>): string {
  const url = new URL(forge.url);
  return `${forge.type} ${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
}

/** How a client reaches its forge: the pinned fetch, and the redaction every answer's text goes through. */
export interface ForgeHttp {
  fetch: typeof fetch;
  /** Removes every configured forge credential, and anything shaped like one (docs/robustness.md "Secrets in outbound errors"). */
  redact: (text: string) => string;
}

/**
 * A refusal whose message is the forge's text redacted, then cut: a forge may echo the request's
 * credential in its error, and this message is kept (last_error, the delivery log) and logged.
 */
export function refusalOf(http: ForgeHttp, statusCode: number, headers: Headers, text: string): ForgeRefusal {
  const shown = http.redact(text).slice(0, 300);
  return new ForgeRefusal(statusCode, headers, `HTTP ${statusCode}${shown ? `: ${shown}` : ''}`);
}

/** A JSON request through the forge's fetch, answering the forge's JSON; a non-2xx answer becomes a ForgeRefusal with the forge's message. */
export async function sendJson(http: ForgeHttp, method: string, url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const res = await http.fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), Accept: 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw refusalOf(http, res.status, res.headers, text);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** The first comment of a list whose body holds `marker`. */
export function markedComment(list: unknown, marker: string): string | null {
  if (!Array.isArray(list)) return null;
  const found = list.find((c: { body?: unknown }) => typeof c?.body === 'string' && c.body.includes(marker)) as { id?: unknown } | undefined;
  return found && (typeof found.id === 'number' || typeof found.id === 'string') ? String(found.id) : null;
}

/** The `id` of a created comment, as a string (GitHub, GitLab and Gitea give a number). */
export function commentIdOf(created: unknown): string {
  const id = (created as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' && typeof id !== 'string') throw new Error('the forge answered a created comment without an id');
  return String(id);
}
