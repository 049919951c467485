import type { EntityManager } from 'typeorm';

/** Positional parameters for hand-written SQL: `?` on SQLite, `$n` on PostgreSQL. */
export class SqlParameters {
  private readonly list: unknown[] = [];
  constructor(readonly postgres: boolean) {}

  static for(manager: EntityManager): SqlParameters {
    return new SqlParameters(manager.connection.options.type === 'postgres');
  }

  add(value: unknown): string {
    this.list.push(value);
    return this.last();
  }

  /** The placeholder of the value added last (to bind it again in a second query). */
  last(): string {
    return this.placeholder(this.list.length);
  }

  placeholder(position: number): string {
    return this.postgres ? `$${position}` : '?';
  }

  values(): unknown[] {
    return [...this.list];
  }
}
