import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/** Issue 40 item 6: the team may ask for a reason (a comment) before a build is rejected; off by default. */
export class RejectReasonRequired1700000029500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('team_settings', new TableColumn({ name: 'reject_reason_required', type: 'boolean', default: false }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('team_settings', 'reject_reason_required');
  }
}
