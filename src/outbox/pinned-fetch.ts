import * as http from 'node:http';
import * as https from 'node:https';
import type { DestinationPolicy } from '../webhooks/destination/address-classifier';
import type { DestinationGuard } from '../webhooks/destination/destination-guard';

/** Largest response read (a status, chat message or created issue answer is a few KB). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * A `fetch` for every outgoing API call (forges: given to Octokit as `request.fetch`, used directly
 * for GitLab and Gitea; Slack, Teams and trackers through the outbox) that keeps the webhooks' SSRF rule: every request's destination is vetted by the
 * DestinationGuard under `policy` (a svc.config.json forge, `operator`, may be on this host or the
 * LAN, never a cloud metadata address; a dashboard forge, `api`, as a webhook registered through the
 * API: the LAN, never this host), and the socket connects to the vetted address itself, so a
 * second DNS answer cannot move it. Redirects are not followed; proxies from the environment are
 * not used. One deadline covers DNS, connect, TLS and the whole response.
 */
export function pinnedFetch(guard: DestinationGuard, timeoutMs: number, policy: DestinationPolicy): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
    const destination = await guard.vet(url.href, policy, timeoutMs);
    const secure = url.protocol === 'https:';
    const headers = new Headers(init.headers);
    const body = init.body == null ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : Buffer.from(await new Response(init.body).arrayBuffer());
    const outgoing: Record<string, string> = { Host: url.host };
    headers.forEach((value, name) => (outgoing[name] = value));
    if (body) outgoing['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? https : http).request(
        {
          method: init.method ?? 'GET',
          host: destination.address,
          family: destination.family,
          port: url.port ? Number(url.port) : secure ? 443 : 80,
          path: url.pathname + url.search,
          headers: outgoing,
          agent: false,
          signal,
          servername: secure && !destination.literal ? destination.hostname.replace(/\.$/, '') : undefined,
          lookup: () => {
            throw new Error('outbound connections do not resolve names');
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) return req.destroy(new Error(`the destination answered more than ${MAX_RESPONSE_BYTES} bytes`));
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            const empty = status === 204 || status === 304 || status < 200;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status: status >= 200 && status <= 599 ? status : 502, headers: responseHeaders }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}
