import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * One private LAN for a whole jest run: a network namespace joined to this machine by a veth pair,
 * host side 10.231.N.1/24. It is made once, by jest's globalSetup, before any suite starts, and
 * removed by globalTeardown after the last one.
 *
 * Why once: a new interface or address on this machine is a network change to Chromium, which
 * fails whatever the dashboard's page is loading at that moment with ERR_NETWORK_CHANGED. Suites
 * run in parallel, so a webhook suite making its own veth pair broke a browser suite in the other
 * worker. Suites now only lease addresses inside the namespace, which this machine does not see.
 */
const LAN_ENV = 'SVC_TEST_LAN';
const SKIP_ENV = 'SVC_TEST_LAN_SKIPPED';
const CAP_NET_ADMIN = 12;

interface TestLanInfo {
  namespace: string;
  hostLink: string;
  nsLink: string;
  /** The first three octets, e.g. "10.231.140". */
  prefix: string;
}

function ip(...args: string[]): string {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

function quietly(...args: string[]): void {
  spawnSync('ip', args, { stdio: 'ignore' });
}

/** Null when this process may make namespaces and veth pairs, else why not. */
function cannotMakeLan(): string | null {
  if (process.env.SVC_TEST_NETNS === 'off') return 'disabled by SVC_TEST_NETNS=off';
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const capEff = BigInt('0x' + (/CapEff:\s*([0-9a-f]+)/i.exec(status)?.[1] ?? '0'));
    if (!((capEff >> BigInt(CAP_NET_ADMIN)) & BigInt(1))) return 'no CAP_NET_ADMIN (run as root)';
  } catch {
    return 'cannot read /proc/self/status';
  }
  const probe = spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) return 'the `ip` command (iproute2) is missing or `ip netns` is not usable';
  return null;
}

/** A /24 in 10.231.0.0/16 that no interface here uses (other checkouts may be testing at once). */
function freePrefix(): string {
  const inUse = ip('-o', '-4', 'addr', 'show');
  for (let i = 0; i < 100; i++) {
    const prefix = `10.231.${100 + Math.floor(Math.random() * 150)}`;
    if (!inUse.includes(`${prefix}.`)) return prefix;
  }
  throw new Error('no free 10.231.x.0/24 for the test LAN');
}

/** Namespaces left by a jest run that was killed before its teardown. */
function removeAbandoned(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const pid = Number(/^svc-lan-(\d+)/.exec(line)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      quietly('netns', 'del', `svc-lan-${pid}`);
    }
  }
}

/** jest globalSetup: makes the LAN, or records why it cannot (suites then skip loudly). */
export function createTestLan(): void {
  const reason = cannotMakeLan();
  if (reason) {
    process.env[SKIP_ENV] = reason;
    return;
  }
  removeAbandoned();
  const lan: TestLanInfo = {
    namespace: `svc-lan-${process.pid}`,
    hostLink: `svl${process.pid}h`,
    nsLink: `svl${process.pid}n`,
    prefix: freePrefix(),
  };
  try {
    ip('netns', 'add', lan.namespace);
    ip('link', 'add', lan.hostLink, 'type', 'veth', 'peer', 'name', lan.nsLink);
    ip('link', 'set', lan.nsLink, 'netns', lan.namespace);
    ip('addr', 'add', `${lan.prefix}.1/24`, 'dev', lan.hostLink);
    ip('link', 'set', lan.hostLink, 'up');
    ip('-n', lan.namespace, 'addr', 'add', `${lan.prefix}.2/24`, 'dev', lan.nsLink);
    ip('-n', lan.namespace, 'link', 'set', lan.nsLink, 'up');
    ip('-n', lan.namespace, 'link', 'set', 'lo', 'up');
  } catch (err) {
    removeLan(lan);
    process.env[SKIP_ENV] = `could not make the test LAN: ${(err as Error).message}`;
    return;
  }
  // Workers are started after globalSetup and inherit its environment.
  process.env[LAN_ENV] = JSON.stringify(lan);
}

/** jest globalTeardown. */
export function removeTestLan(): void {
  const lan = current();
  if (lan) removeLan(lan);
  delete process.env[LAN_ENV];
}

function removeLan(lan: TestLanInfo): void {
  // Deleting the namespace deletes its end of the pair, and with it this machine's end.
  quietly('link', 'del', lan.hostLink);
  quietly('netns', 'del', lan.namespace);
}

function current(): TestLanInfo | null {
  const raw = process.env[LAN_ENV];
  return raw ? (JSON.parse(raw) as TestLanInfo) : null;
}

function required(): TestLanInfo {
  const lan = current();
  if (!lan) throw new Error(`no test LAN: ${testLanSkipReason()}`);
  return lan;
}

/** Null when suites can use the LAN, else the reason for their loud skip. */
export function testLanSkipReason(): string | null {
  if (current()) return null;
  return process.env[SKIP_ENV] ?? 'the test LAN is made by jest globalSetup (test/support/lan-setup.ts), which did not run';
}

/** This machine's address on the LAN (the relay's "own host" LAN address). */
export function lanHostAddress(): string {
  return `${required().prefix}.1`;
}

/** `ip netns exec <lan> <command…>`: the arguments for `ip` that run a command on the LAN's other side. */
export function onLan(command: string, ...args: string[]): string[] {
  return ['netns', 'exec', required().namespace, command, ...args];
}

/**
 * An address of its own on the LAN's other side, for one receiver or client. Adding it there is
 * atomic, so suites in parallel workers never get the same one; nothing changes on this machine.
 */
export function leaseLanAddress(): { address: string; release: () => void } {
  const lan = required();
  for (let host = 3; host < 255; host++) {
    const address = `${lan.prefix}.${host}`;
    const added = spawnSync('ip', ['-n', lan.namespace, 'addr', 'add', `${address}/32`, 'dev', lan.nsLink], { encoding: 'utf8' });
    if (added.status === 0) {
      return { address, release: () => quietly('-n', lan.namespace, 'addr', 'del', `${address}/32`, 'dev', lan.nsLink) };
    }
    if (!/exists|already assigned/i.test(added.stderr)) throw new Error(`could not add ${address} on the test LAN: ${added.stderr.trim()}`);
  }
  throw new Error('the test LAN has no free address');
}
