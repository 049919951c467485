import type { ConfigFileForge } from '../../config/forge-config';
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

/** The forge answered, but not with a 2xx: its status and headers decide whether to try again. */
export class ForgeRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly headers: Headers,
    message: string,
  ) {
    super(message);
  }
}

/** Posts statuses to one kind of forge; throws ForgeRefusal for a non-2xx answer, anything else for a network error. */
export interface ForgeClient {
  post(status: StatusPost): Promise<void>;
}

/** `github https://api.github.com`: names a configured forge in logs and the delivery log, never with a credential. */
export function forgeLabel(forge: Pick<ConfigFileForge, 'type' | 'url'>): string {
  const url = new URL(forge.url);
  return `${forge.type} ${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
}

/** A JSON POST through `fetchImpl`; a non-2xx answer becomes a ForgeRefusal with the forge's message. */
export async function postJson(fetchImpl: typeof fetch, url: string, headers: Record<string, string>, body: unknown): Promise<void> {
  const res = await fetchImpl(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.ok) return;
  const text = (await res.text()).slice(0, 300);
  throw new ForgeRefusal(res.status, res.headers, `HTTP ${res.status}${text ? `: ${text}` : ''}`);
}
