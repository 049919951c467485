import { DataSource } from 'typeorm';
import type { TestRelay } from './test-relay';

/**
 * A build row for tests of features attached to builds (comments). The builds module is developed
 * on another branch; until it is merged here, a stand-in `builds` table with just an id is created
 * when none exists. Replace with an upload through POST /builds once builds lands.
 */
export async function insertTestBuild(relay: TestRelay): Promise<number> {
  const db = relay.app.get(DataSource);
  const columns: Array<{ name: string }> = await db.query("SELECT name FROM pragma_table_info('builds')");
  if (!columns.length) await db.query('CREATE TABLE builds (id integer PRIMARY KEY AUTOINCREMENT)');
  const result = await db.query('INSERT INTO builds DEFAULT VALUES RETURNING id');
  return result[0].id;
}

export async function deleteTestBuild(relay: TestRelay, id: number): Promise<void> {
  await relay.app.get(DataSource).query('DELETE FROM builds WHERE id = ?', [id]);
}
