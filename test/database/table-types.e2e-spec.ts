import { readFileSync } from 'node:fs';
import { generateTables, TABLES_FILE } from '../../scripts/generate-tables';

/**
 * Kysely's table types (src/database/query-builder/tables.ts) are generated from the TypeORM
 * entities (issue 41 item 1); an entity changed without regenerating them fails here.
 */
describe('Kysely table types', () => {
  it('src/database/query-builder/tables.ts is what the entities declare (npm run db-types)', async () => {
    expect(readFileSync(TABLES_FILE, 'utf8')).toBe(await generateTables());
  });
});
