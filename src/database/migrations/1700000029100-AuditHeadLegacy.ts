import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36 item 6 (docs/audit.md "What the chain proves"): a log written before the head was signed
 * (entries, or an anchor left by pruning, and no head signature) is marked here, once, as the only
 * unsigned head the relay signs at its start without an operator. A new database is left unmarked
 * (its first entry signs it); after this migration an unsigned head is a break until
 * `svc audit accept-head`. The literal is LEGACY_HEAD_KEY_ID (a migration keeps its own copy).
 */
export class AuditHeadLegacy1700000029100 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE audit_state SET head_key_id = 'legacy'
       WHERE head_mac IS NULL AND head_key_id IS NULL AND (anchor_id IS NOT NULL OR EXISTS (SELECT 1 FROM audit_entries))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE audit_state SET head_key_id = NULL WHERE head_key_id = 'legacy' AND head_mac IS NULL`);
  }
}
