import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38, docs/release-gate.md "The commit status": `release_gate_states.version` counts each
 * stored change of a build's gate, and `forge_status_outbox.gate_versions` keeps, for a queued
 * `svc/release-gate`, the versions of the gates it was made from (`{"<build id>": version}`), so the
 * outbox refuses a status made from an older gate than the newest one queued for its commit.
 */
export class GateStatusVersions1700000034500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE release_gate_states ADD COLUMN version integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE forge_status_outbox ADD COLUMN gate_versions text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE forge_status_outbox DROP COLUMN gate_versions');
    await q.query('ALTER TABLE release_gate_states DROP COLUMN version');
  }
}
