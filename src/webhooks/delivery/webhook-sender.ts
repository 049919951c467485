import { Injectable } from '@nestjs/common';
import * as http from 'node:http';
import * as https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { DestinationPolicy } from '../destination/address-classifier';
import { DestinationGuard, DestinationRefused, VettedDestination } from '../destination/destination-guard';
import { WebhookDeliverySettings } from './delivery-settings';

export interface AttemptRequest {
  url: string;
  policy: DestinationPolicy;
  headers: Record<string, string>;
  body: Buffer;
  /** Aborts the attempt early (relay shutting down). */
  signal?: AbortSignal;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Network error, timeout or 5xx: worth another attempt. 2xx, 3xx, 4xx and refusals are final. */
  retryable: boolean;
  ok: boolean;
}

/**
 * One HTTP POST to a webhook, made safe for URLs that users type:
 * - the destination is vetted on every attempt (DestinationGuard), and the socket connects to the
 *   vetted address itself: no second DNS lookup, so no rebinding window, and IP literals go through
 *   the same check as names. The Host header and TLS SNI/certificate check keep the name;
 * - redirects are never followed (a 3xx is a failed delivery); proxies from the environment are
 *   not used (node:http ignores HTTP(S)_PROXY);
 * - one deadline covers DNS, connect, TLS and the response headers; the response body is read up
 *   to a few KB and the connection closed.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly guard: DestinationGuard,
    private readonly settings: WebhookDeliverySettings,
  ) {}

  async send(request: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timeoutMs = this.settings.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    try {
      const destination = await raceAbort(this.guard.vet(request.url, request.policy, timeoutMs), signal);
      const statusCode = await this.post(destination, request, signal);
      const ok = statusCode >= 200 && statusCode < 300;
      const error = ok ? null : statusCode >= 300 && statusCode < 400 ? `redirect not followed (HTTP ${statusCode})` : `HTTP ${statusCode}`;
      return { statusCode, error, durationMs: elapsed(), retryable: statusCode >= 500, ok };
    } catch (err) {
      const timedOut = deadline.aborted;
      if (err instanceof DestinationRefused && !timedOut) {
        return { statusCode: null, error: `destination refused: ${err.reason}`, durationMs: elapsed(), retryable: err.transient, ok: false };
      }
      const error = timedOut
        ? `timed out after ${timeoutMs} ms`
        : request.signal?.aborted
          ? 'aborted (relay shutting down)'
          : describeNetworkError(err);
      return { statusCode: null, error, durationMs: elapsed(), retryable: !request.signal?.aborted, ok: false };
    }
  }

  private post(destination: VettedDestination, request: AttemptRequest, signal: AbortSignal): Promise<number> {
    const { url } = destination;
    const secure = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      host: destination.address,
      family: destination.family,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: url.pathname + url.search,
      headers: { ...request.headers, Host: url.host, 'Content-Length': String(request.body.length) },
      auth: url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
      agent: false,
      signal,
      // The name for SNI and for the certificate check; an IP literal is checked as an IP.
      servername: secure && !destination.literal ? destination.hostname.replace(/\.$/, '') : undefined,
      // Never a second lookup: `host` is already the vetted address.
      lookup: () => {
        throw new Error('webhook connections do not resolve names');
      },
    };
    return new Promise<number>((resolve, reject) => {
      const req = (secure ? https : http).request(options, (res) => {
        resolve(res.statusCode ?? 0);
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.settings.maxResponseBytes) req.destroy();
        });
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      req.end(request.body);
    });
  }
}

/** Rejects as soon as `signal` aborts, so a slow DNS answer counts against the same deadline. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describeNetworkError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
  };
  if (e?.code && known[e.code]) return `${known[e.code]} (${e.code})`;
  // Whole: the dispatcher redacts it, then cuts it (a credential cut in half would escape redaction).
  return e?.message || String(err);
}
