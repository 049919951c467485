import type { Pool, PoolClient, QueryArrayConfig, QueryConfig } from 'pg';
import type { Connection, Held, Rows, Session } from './connection';

/**
 * PostgreSQL through the data source's pool: a statement alone on whichever connection is free, a
 * transaction on a pooled connection of its own until its end. The pool's connections are the
 * relay's PreparingClient (src/platform/pg), which sends parameterised statements as named ones.
 */
export class PostgresConnection implements Connection {
  readonly dialect = 'postgres' as const;

  /** `pool`: read when first used (the data source creates it in initialize()). */
  constructor(private readonly pool: () => Pool) {}

  async query(sql: string, parameters: readonly unknown[], arrays: boolean): Promise<Rows> {
    return (await this.pool().query(config(sql, parameters, arrays))).rows;
  }

  async hold(): Promise<Held> {
    const client = await this.pool().connect();
    let released = false;
    return {
      query: async (sql, parameters, arrays) => {
        if (released) throw new Error('The connection was given back; a statement of its work ran after it (was it awaited?)');
        return (await client.query(config(sql, parameters, arrays))).rows;
      },
      release: () => {
        if (released) return;
        released = true;
        client.release();
      },
    };
  }

  async begin(): Promise<Session> {
    const client = await this.pool().connect();
    try {
      await client.query('BEGIN');
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return session(client);
  }
}

function session(client: PoolClient): Session {
  let ended = false;
  return {
    query: async (sql, parameters, arrays) => {
      if (ended) throw new Error('The transaction has ended; a statement of its work ran after it (was it awaited?)');
      return (await client.query(config(sql, parameters, arrays))).rows;
    },
    end: async (commit) => {
      if (ended) return;
      ended = true;
      let broken: Error | undefined;
      try {
        await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      } catch (error) {
        // A connection whose COMMIT or ROLLBACK failed is not given to anyone else.
        broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** A config object, not (text, values): the form PreparingClient names (and the one that takes rowMode). */
function config(text: string, values: readonly unknown[], arrays: boolean): QueryArrayConfig | QueryConfig {
  return arrays ? { text, values: values as unknown[], rowMode: 'array' } : { text, values: values as unknown[] };
}
