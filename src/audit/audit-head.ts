import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRETS_KEY_ENV } from '../common/crypto/secret-box';
import type { RelayConfig } from '../config/relay-config';
import type { AuditRecordFields } from './audit-record.columns';

/** Where the head key is kept when SVC_SECRETS_KEY is not set: beside the database, never in it. */
export const AUDIT_HEAD_KEY_FILE = 'audit-head.key';

/**
 * head_key_id of a log written before the head was signed, set by migration AuditHeadLegacy only:
 * the relay signs such a head at its start, once (docs/audit.md). Never a key's id (those are 8
 * base64url characters).
 */
export const LEGACY_HEAD_KEY_ID = 'legacy';

/**
 * The key that signs the log's head (docs/audit.md "What the chain proves"). Not in the database,
 * so someone who can only write the database cannot make a shortened log look whole.
 */
export interface AuditHeadKey {
  key: Buffer;
  /** A fingerprint stored with the signature: tells "signed with another key" from "edited". */
  id: string;
  /** Where it comes from, for messages: the variable, or the file's path. */
  source: string;
}

/** What the head signature covers: the state of the whole kept log, not only its last hash. */
export interface AuditHead {
  count: number;
  lastId: number | null;
  hash: string | null;
  anchorId: number | null;
  anchorHash: string | null;
}

/**
 * SVC_SECRETS_KEY when set (an HMAC of it for this one use), else the key file in the data folder.
 * `create` makes the file when missing (the relay and the commands that write the log); the
 * verifier passes false and reports a missing key instead of writing anything.
 */
export function loadAuditHeadKey(config: Pick<RelayConfig, 'secretsKey' | 'dataDir'>, create: boolean): AuditHeadKey | null {
  if (config.secretsKey) return withId(createHmac('sha256', config.secretsKey).update('svc relay audit head').digest(), SECRETS_KEY_ENV);
  const path = join(config.dataDir, AUDIT_HEAD_KEY_FILE);
  const existing = readKeyFile(path);
  if (existing || !create) return existing && withId(existing, path);
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process (the relay beside a CLI command) made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return withId(readKeyFile(path)!, path);
}

function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`${path} is not an audit head key (64 hexadecimal characters)`);
  return Buffer.from(text, 'hex');
}

function withId(key: Buffer, source: string): AuditHeadKey {
  return { key, id: createHmac('sha256', key).update('svc relay audit head key id').digest().subarray(0, 6).toString('base64url'), source };
}

/** HMAC-SHA256 (hex) of the head in a fixed field order. */
export function signHead(key: AuditHeadKey, head: AuditHead): string {
  const text = JSON.stringify(['svc-audit-head', 1, head.count, head.lastId, head.hash, head.anchorId, head.anchorHash]);
  return createHmac('sha256', key.key).update(text).digest('hex');
}

/** Whether `mac` is the head's signature under `key` (constant-time). */
export function headSignatureHolds(key: AuditHeadKey, head: AuditHead, mac: string | null): boolean {
  return sameMac(signHead(key, head), mac);
}

/**
 * HMAC-SHA256 (hex) of an entry waiting to be chained. The writer chains only entries that carry
 * it: the relay signs the head after chaining them, and it must not vouch for a row someone who can
 * only write the database put in audit_pending (docs/audit.md).
 */
export function signPending(key: AuditHeadKey, entry: AuditRecordFields): string {
  const text = JSON.stringify(['svc-audit-pending', 1, entry.at.getTime(), entry.actorId, entry.actorLabel, entry.via, entry.action, entry.target, entry.clientAddress, entry.details]);
  return createHmac('sha256', key.key).update(text).digest('hex');
}

/** Whether `mac` is the waiting entry's signature under `key` (constant-time). */
export function pendingSignatureHolds(key: AuditHeadKey, entry: AuditRecordFields, mac: string | null): boolean {
  return sameMac(signPending(key, entry), mac);
}

function sameMac(expectedHex: string, mac: string | null): boolean {
  if (!mac) return false;
  const expected = Buffer.from(expectedHex, 'hex');
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
