import type { Database, Statement } from 'better-sqlite3';
import type { Connection, Held, Rows, Session } from './connection';

/** Prepared statements kept by SQL text; past it the oldest goes (the list's filter/sort shapes alone are hundreds). */
const MAX_STATEMENTS = 1000;

/**
 * The relay's one better-sqlite3 connection (docs/database.md "SQLite"). Every statement of every
 * request runs on it, so a transaction must own it: transactions take turns (first come, first
 * served), each from its BEGIN to its COMMIT or ROLLBACK, and a statement from outside the owning
 * transaction waits until it ends. Without this, two requests' transactions would nest in each
 * other and a third request's statement would become part of whichever was open (and be rolled
 * back with it). Statements are prepared once per text and bound, never written into the text.
 */
export class SqliteConnection implements Connection {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  private owned = false;
  private released: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  /** The sessions asked for, in order: each begins once the one before has its turn. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `database`: read when first used (the data source opens it in initialize()). */
  constructor(private readonly database: () => Database) {}

  async query(sql: string, parameters: readonly unknown[], arrays: boolean): Promise<Rows> {
    while (this.owned) await this.released;
    return this.run(sql, parameters, arrays);
  }

  /** The one connection has nothing to hold: each statement runs alone, as query() runs it. */
  async hold(): Promise<Held> {
    return { query: (sql, parameters, arrays) => this.query(sql, parameters, arrays), release: () => undefined };
  }

  begin(): Promise<Session> {
    const turn = this.queue.then(async () => {
      while (this.owned) await this.released;
      this.owned = true;
      this.released = new Promise((resolve) => (this.release = resolve));
      try {
        this.run('BEGIN', [], false);
      } catch (error) {
        this.free();
        throw error;
      }
      return this.session();
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private session(): Session {
    let ended = false;
    return {
      query: async (sql, parameters, arrays) => {
        if (ended) throw new Error('The transaction has ended; a statement of its work ran after it (was it awaited?)');
        return this.run(sql, parameters, arrays);
      },
      end: async (commit) => {
        if (ended) return;
        ended = true;
        try {
          this.run(commit ? 'COMMIT' : 'ROLLBACK', [], false);
        } finally {
          if (this.database().inTransaction) this.database().prepare('ROLLBACK').run();
          this.free();
        }
      },
    };
  }

  private run(sql: string, parameters: readonly unknown[], arrays: boolean): Rows {
    const statement = this.prepared(sql);
    if (!statement.reader) {
      statement.run(...parameters);
      return [];
    }
    return statement.raw(arrays).all(...parameters);
  }

  private prepared(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database().prepare(sql);
      this.statements.set(sql, statement);
      if (this.statements.size > MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
    }
    return statement;
  }

  private free(): void {
    this.owned = false;
    this.release();
  }
}
