import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/** Agent resource history (one row per agent per minute) and screen recordings. */
export class AgentsAndRecordings1700000004000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'agent_resource_samples',
        columns: [
          idColumn(),
          { name: 'agent_name', type: 'varchar', length: '64' },
          timestamp('minute'),
          timestamp('recorded_at'),
          { name: 'cpu_percent', type: 'real' },
          { name: 'mem_percent', type: 'real' },
        ],
        indices: [
          // Serves the upsert, GET /agents (distinct names) and the range reads; minute alone serves the purge.
          { name: 'UQ_agent_resource_samples_agent_minute', columnNames: ['agent_name', 'minute'], isUnique: true },
          { name: 'IDX_agent_resource_samples_minute', columnNames: ['minute'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'recordings',
        columns: [
          idColumn(),
          { name: 'filename', type: 'varchar', length: '100', isUnique: true },
          { name: 'session_id', type: 'varchar', length: '200', isNullable: true },
          // A build's id; no foreign key, so a recording outlives a purged build until its own 72 hours end.
          { name: 'build_id', type: 'integer', isNullable: true },
          { name: 'file_size', type: 'bigint' },
          { name: 'mime', type: 'varchar', length: '50' },
          { name: 'uploaded_by', type: 'integer', isNullable: true },
          timestamp('created_at'),
          timestamp('expires_at'),
        ],
        indices: [
          { name: 'IDX_recordings_build_id', columnNames: ['build_id'] },
          { name: 'IDX_recordings_expires_at', columnNames: ['expires_at'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('recordings');
    await q.dropTable('agent_resource_samples');
  }
}
