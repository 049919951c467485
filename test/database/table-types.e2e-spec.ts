import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { describeSchema, generateTables, TABLES_FILE } from '../../scripts/generate-tables';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { createTestDatabase, itPostgresOnly } from '../support/test-relay';

/**
 * Kysely's table types (src/database/query-builder/tables.ts) are generated from the TypeORM
 * entities and, for what no entity declares, from the migrations run on SQLite (issue 41 item 1);
 * an entity or a migration changed without regenerating them fails here.
 */
describe('Kysely table types', () => {
  it('src/database/query-builder/tables.ts is what the entities and the migrations declare (npm run db-types)', async () => {
    expect(readFileSync(TABLES_FILE, 'utf8')).toBe(await generateTables());
  });

  itPostgresOnly('the types describe a migrated PostgreSQL database')(
    'name every table and column of a freshly migrated PostgreSQL database, and nothing it lacks but SQLite-only ones',
    async () => {
      const database = (await createTestDatabase())!;
      const dataSource = new DataSource({ ...dataSourceOptions({ database: { type: 'postgres', url: database.url, poolSize: 2 } } as never), logging: false });
      try {
        await dataSource.initialize();
        const rows = (await dataSource.query(
          "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY table_name, column_name",
        )) as { table_name: string; column_name: string }[];
        const onPostgres = rows.map((r) => `${r.table_name}.${r.column_name}`);
        const described = (await describeSchema())
          .filter((table) => table.only !== 'sqlite')
          .flatMap((table) => table.columns.filter((column) => column.only !== 'sqlite').map((column) => `${table.name}.${column.name}`))
          .sort();
        expect(described).toEqual([...onPostgres].sort());
      } finally {
        if (dataSource.isInitialized) await dataSource.destroy();
        await database.drop();
      }
    },
  );
});
