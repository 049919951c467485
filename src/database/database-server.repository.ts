import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { QueryBuilder } from './query-builder/query-builder';

/** Questions to the database server itself, not to a table: whether it answers, how it is set up. */
@Injectable()
export class DatabaseServerRepository {
  private readonly sql: QueryBuilder;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = QueryBuilder.of(dataSource);
  }

  /** Whether the database answers a statement (false before the data source is up, or on any error). */
  async answers(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    try {
      const statement = this.sql.prepare('server.ping', () => ({ compile: () => sql`SELECT 1`.compile(this.sql.db) }));
      await statement.run(this.dataSource.manager, {});
      return true;
    } catch {
      return false;
    }
  }

  /** PostgreSQL's `autovacuum` setting is on; null on SQLite, which has none. */
  async autovacuumOn(): Promise<boolean | null> {
    if (!this.sql.postgres) return null;
    const statement = this.sql.prepare('server.autovacuum', () => ({ compile: () => sql`SHOW autovacuum`.compile(this.sql.db) }));
    const [row] = await statement.run<{ autovacuum: string }>(this.dataSource.manager, {});
    return row?.autovacuum === 'on';
  }
}
