import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The release gate's state beside each build (issue 38, docs/release-gate.md "The inbox's filter"):
 * `builds.gate_state` (pending, passed, failed; null when no gate was decided or no policy applies),
 * kept by the release-gate module through BuildGateStates, so `GET /builds?gate=` filters it like the
 * status: `IDX_builds_gate_uploaded` (gate_state, uploaded_at, id) reads a gate's page in the
 * default order straight from the index. A plain ADD COLUMN: the builds table is not rebuilt, its
 * triggers stay (none of them reads the column). Filled from release_gate_states.
 */
export class BuildGateState1700000034000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE builds ADD COLUMN gate_state varchar(10)');
    await q.query(
      `UPDATE builds SET gate_state = (SELECT s.state FROM release_gate_states s WHERE s.build_id = builds.id)
       WHERE id IN (SELECT build_id FROM release_gate_states WHERE state IN ('pending', 'passed', 'failed') AND checklist <> '')`,
    );
    await q.createIndex('builds', new TableIndex({ name: 'IDX_builds_gate_uploaded', columnNames: ['gate_state', 'uploaded_at', 'id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('builds', 'IDX_builds_gate_uploaded');
    await q.query('ALTER TABLE builds DROP COLUMN gate_state');
  }
}
