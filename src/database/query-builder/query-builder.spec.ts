import { DataSource } from 'typeorm';
import { QueryBuilder } from './query-builder';

/** Compile-only: no connection is opened; the statements are the data source's dialect. */
const builderFor = (type: 'better-sqlite3' | 'postgres') => QueryBuilder.of(new DataSource({ type, database: ':memory:' } as ConstructorParameters<typeof DataSource>[0]));

describe('QueryBuilder (compile-only Kysely)', () => {
  it.each([
    ['better-sqlite3', 'select "s"."id" from "sessions" as "s" where "s"."token_hash" = ? and "s"."user_id" = ?'],
    ['postgres', 'select "s"."id" from "sessions" as "s" where "s"."token_hash" = $1 and "s"."user_id" = $2'],
  ] as const)('writes %s placeholders and binds values by name, in the order they appear', (type, text) => {
    const sql = builderFor(type);
    const statement = sql.prepare('spec.session', (v: { hash: string; user: number }) =>
      sql.db.selectFrom('sessions as s').select('s.id').where('s.token_hash', '=', v.hash).where('s.user_id', '=', v.user),
    );
    expect(statement.sql).toBe(text);
    expect(statement.parameters({ user: 7, hash: 'abc' })).toEqual(['abc', 7]);
  });

  it('compiles a shape once: the same key gives the same statement, whatever the builder would write now', () => {
    const sql = builderFor('better-sqlite3');
    const first = sql.prepare('spec.ids', (v: { id: number }) => sql.db.selectFrom('builds as b').select('b.id').where('b.id', '=', v.id));
    const again = sql.prepare('spec.ids', () => {
      throw new Error('compiled again');
    });
    expect(again).toBe(first);
    expect(again.parameters({ id: 3 })).toEqual([3]);
  });

  it('binds array elements by index (an IN list of as many stand-ins as ids)', () => {
    const sql = builderFor('postgres');
    const statement = sql.prepare('spec.in 3', (v: number[]) => sql.db.selectFrom('builds as b').select('b.id').where('b.id', 'in', [v[0], v[1], v[2]]));
    expect(statement.sql).toBe('select "b"."id" from "builds" as "b" where "b"."id" in ($1, $2, $3)');
    expect(statement.parameters([9, 8, 7])).toEqual([9, 8, 7]);
  });

  it('refuses a value written into a prepared statement (the next run of that shape would reuse it)', () => {
    const sql = builderFor('better-sqlite3');
    expect(() => sql.prepare('spec.literal', () => sql.db.selectFrom('builds as b').select('b.id').where('b.id', '=', 5))).toThrow(
      /binds only its named values; 5 is written in/,
    );
  });

  it('one builder per dialect, whatever the data source', () => {
    expect(QueryBuilder.of(new DataSource({ type: 'postgres' }))).toBe(QueryBuilder.for('postgres'));
    expect(builderFor('better-sqlite3')).toBe(QueryBuilder.for('sqlite'));
    expect(QueryBuilder.for('sqlite')).not.toBe(QueryBuilder.for('postgres'));
  });

  it('binds booleans as the dialect stores them (better-sqlite3 binds no booleans)', () => {
    expect([builderFor('better-sqlite3').bool(true), builderFor('better-sqlite3').bool(false)]).toEqual([1, 0]);
    expect([builderFor('postgres').bool(true), builderFor('postgres').bool(false)]).toEqual([true, false]);
  });
});
