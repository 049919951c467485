import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { QueryBuilder } from './query-builder/query-builder';
import { SqlExecutor } from './sql-executor';

/** Questions to the database server itself, not to a table: whether it answers, how it is set up. */
@Injectable()
export class DatabaseServerRepository {
  private readonly sql: QueryBuilder;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly db: SqlExecutor,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Whether the database answers a statement (false before the data source is up, or on any error). */
  async answers(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    try {
      const statement = this.sql.prepare('server.ping', () => ({ compile: () => sql`SELECT 1`.compile(this.sql.db) }));
      await statement.run(this.db, {});
      return true;
    } catch {
      return false;
    }
  }

  /** PostgreSQL's `autovacuum` setting is on; null on SQLite, which has none. */
  async autovacuumOn(): Promise<boolean | null> {
    if (!this.sql.postgres) return null;
    const statement = this.sql.prepare('server.autovacuum', () => ({ compile: () => sql`SHOW autovacuum`.compile(this.sql.db) }));
    const [row] = await statement.run<{ autovacuum: string }>(this.db, {});
    return row?.autovacuum === 'on';
  }
}
