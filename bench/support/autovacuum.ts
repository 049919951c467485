import { Client } from 'pg';

/**
 * PostgreSQL's autovacuum, done by the benchmark on its own database when the server has it off.
 *
 * This machine's server runs with `autovacuum = off` (its conf.d/90-ci.conf, for CI), a setting no
 * install of the relay is told to use. A benchmark that grows a fresh database under load then
 * measures plans made from no statistics at all: in a 10-minute PostgreSQL soak the builds table,
 * analysed once while empty by the migrations, was read by sequential scan (177 M rows read by
 * 70,000 scans in 3 minutes, as many again from build_status_changes), and the rate fell from 530 to
 * 155 answers/s as the table grew. With the server's default it would have been analysed after its
 * first 50 changes and again as it grew.
 *
 * So, on a server with autovacuum off, every `autovacuum_naptime` this does on the benchmark's
 * database what the launcher would: ANALYZE a table whose changes since its last analysis pass
 * `autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × reltuples`, VACUUM one whose dead
 * rows (or rows inserted since its last vacuum) pass the vacuum thresholds, each table's own storage
 * parameters (the count tables', migration BuildDayCounts) before the server's settings, and with the
 * server's autovacuum cost delay, as its workers would. It never changes the server's settings.
 * Returns null when the server's autovacuum is on (nothing to do).
 */
export async function emulateAutovacuum(url: string): Promise<{ stop(): Promise<string> } | null> {
  const db = new Client({ connectionString: url });
  await db.connect();
  const setting = async (name: string) => (await db.query<{ setting: string }>('SELECT setting FROM pg_settings WHERE name = $1', [name])).rows[0].setting;
  if ((await setting('autovacuum')) === 'on') {
    await db.end();
    return null;
  }
  const naptimeSeconds = Number(await setting('autovacuum_naptime'));
  const server = {
    analyze: { threshold: Number(await setting('autovacuum_analyze_threshold')), scale: Number(await setting('autovacuum_analyze_scale_factor')) },
    vacuum: { threshold: Number(await setting('autovacuum_vacuum_threshold')), scale: Number(await setting('autovacuum_vacuum_scale_factor')) },
    insert: { threshold: Number(await setting('autovacuum_vacuum_insert_threshold')), scale: Number(await setting('autovacuum_vacuum_insert_scale_factor')) },
  };
  // As the workers run: their cost delay and limit (-1: the plain vacuum's limit).
  const costDelay = await setting('autovacuum_vacuum_cost_delay');
  const costLimit = await setting('autovacuum_vacuum_cost_limit');
  await db.query(`SET vacuum_cost_delay = ${Number(costDelay)}`);
  if (Number(costLimit) > 0) await db.query(`SET vacuum_cost_limit = ${Number(costLimit)}`);

  const done = { analyses: 0, vacuums: 0 };
  const round = async () => {
    const { rows } = await db.query<{ relname: string; reltuples: number; n_mod_since_analyze: string; n_dead_tup: string; n_ins_since_vacuum: string; reloptions: string[] | null }>(
      `SELECT s.relname, c.reltuples, s.n_mod_since_analyze, s.n_dead_tup, s.n_ins_since_vacuum, c.reloptions
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`,
    );
    for (const table of rows) {
      const own = Object.fromEntries((table.reloptions ?? []).map((option) => option.split('=') as [string, string]));
      const limit = (kind: 'analyze' | 'vacuum' | 'insert') => {
        const prefix = kind === 'insert' ? 'autovacuum_vacuum_insert' : `autovacuum_${kind}`;
        const threshold = Number(own[`${prefix}_threshold`] ?? server[kind].threshold);
        const scale = Number(own[`${prefix}_scale_factor`] ?? server[kind].scale);
        return threshold + scale * Math.max(0, table.reltuples);
      };
      const name = `"${table.relname.replace(/"/g, '""')}"`;
      if (Number(table.n_dead_tup) > limit('vacuum') || Number(table.n_ins_since_vacuum) > limit('insert')) {
        await db.query(`VACUUM ${name}`);
        done.vacuums++;
      }
      if (Number(table.n_mod_since_analyze) > limit('analyze')) {
        await db.query(`ANALYZE ${name}`);
        done.analyses++;
      }
    }
  };
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(round).catch(() => undefined);
  }, naptimeSeconds * 1000);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await db.end();
      return (
        `PostgreSQL's autovacuum is off on this server: the benchmark did its work on its own database every ${naptimeSeconds} s ` +
        `at the server's thresholds (${done.analyses} analyses, ${done.vacuums} vacuums; bench/support/autovacuum.ts)`
      );
    },
  };
}
