import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'supertest';
import { startTestRelay, type TestRelay } from './test-relay';

/** A test relay started with an `sso` section in its svc.config.json (docs/identity.md), plus extra SVC_* variables. */
export async function startSsoRelay(sso: Record<string, unknown>, env: Record<string, string> = {}): Promise<TestRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sso-config-'));
  const path = join(dir, 'svc.config.json');
  writeFileSync(path, JSON.stringify({ sso }));
  const relay = await startTestRelay({ SVC_CONFIG: path, ...env });
  const close = relay.close;
  relay.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return relay;
}

/** The `name=value` of a cookie the answer set, or null. */
export function cookieFrom(setCookie: string[] | string | undefined, name: string): string | null {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const found = list.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  return found ? found.split(';')[0] : null;
}

/**
 * Drives the authorization code flow without a browser: the relay's login redirect, the
 * provider's authorize endpoint (which must answer with a redirect straight back, as the stub and
 * the scripted provider do), then the callback carrying the flow cookie. Returns the callback's answer.
 */
export async function oidcSignInWithoutBrowser(
  relay: TestRelay,
  next = '/',
  tamper: (callback: URL, flowCookie: string) => { callback: URL; flowCookie: string | null } = (callback, flowCookie) => ({ callback, flowCookie }),
): Promise<Awaited<Test>> {
  const start = await relay.http().get(`/api/v1/auth/oidc/login?next=${encodeURIComponent(next)}`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}: ${start.text}`);
  const flowCookie = cookieFrom(start.headers['set-cookie'], 'svc_oidc');
  if (!flowCookie) throw new Error('no svc_oidc flow cookie');
  let location = start.headers.location as string;
  // Follow the provider's own redirects (the scripted real provider takes a few hops) until one leads back to the relay.
  let providerCookies: string[] = [];
  for (let hop = 0; hop < 10 && !location.startsWith(relay.url); hop++) {
    const res = await fetch(location, { redirect: 'manual', headers: providerCookies.length ? { cookie: providerCookies.join('; ') } : {} });
    for (const c of res.headers.getSetCookie()) providerCookies = [...providerCookies.filter((p) => !p.startsWith(c.split('=')[0] + '=')), c.split(';')[0]];
    const next = res.headers.get('location');
    if (!next) throw new Error(`the provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
    location = new URL(next, location).toString();
  }
  const chosen = tamper(new URL(location), flowCookie);
  const req = relay.http().get(chosen.callback.pathname + chosen.callback.search);
  return chosen.flowCookie ? req.set('Cookie', chosen.flowCookie) : req;
}
