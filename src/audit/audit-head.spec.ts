import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_HEAD_KEY_FILE, headSignatureHolds, loadAuditHeadKey, signHead } from './audit-head';

const head = { count: 3, lastId: 7, hash: 'a'.repeat(64), anchorId: 4, anchorHash: 'b'.repeat(64) };

describe('audit head key and signature', () => {
  it('makes the key file only when asked, private, and reads the same key back', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-audit-head-'));
    expect(loadAuditHeadKey({ dataDir, secretsKey: null }, false)).toBeNull();
    expect(readdirSync(dataDir)).toEqual([]);
    const made = loadAuditHeadKey({ dataDir, secretsKey: null }, true)!;
    expect(statSync(join(dataDir, AUDIT_HEAD_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadAuditHeadKey({ dataDir, secretsKey: null }, false)!.id).toBe(made.id);
  });

  it('derives the key from SVC_SECRETS_KEY when set, writing nothing', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-audit-head-'));
    const key = loadAuditHeadKey({ dataDir, secretsKey: Buffer.alloc(32, 1) }, true)!;
    expect(key.source).toBe('SVC_SECRETS_KEY');
    expect(readdirSync(dataDir)).toEqual([]);
    expect(key.key.equals(Buffer.alloc(32, 1))).toBe(false);
  });

  it('covers the count, the newest id and hash, and the anchor', () => {
    const key = loadAuditHeadKey({ dataDir: '/nonexistent', secretsKey: Buffer.alloc(32, 2) }, false)!;
    const mac = signHead(key, head);
    expect(headSignatureHolds(key, head, mac)).toBe(true);
    for (const changed of [{ count: 2 }, { lastId: 6 }, { hash: 'c'.repeat(64) }, { anchorId: null }, { anchorHash: null }]) {
      expect(headSignatureHolds(key, { ...head, ...changed }, mac)).toBe(false);
    }
    expect(headSignatureHolds(key, head, null)).toBe(false);
    const other = loadAuditHeadKey({ dataDir: '/nonexistent', secretsKey: Buffer.alloc(32, 3) }, false)!;
    expect(headSignatureHolds(other, head, mac)).toBe(false);
  });
});
