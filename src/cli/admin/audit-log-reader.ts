import { existsSync } from 'node:fs';
import type { DataSourceOptions } from 'typeorm';
import type { RelayConfig } from '../../config/relay-config';
import type { VerifyResult } from '../../audit/audit-verifier';
import { CliError } from '../../relay-client/client-errors';

const WHICH_FOLDER = 'run the command with the data folder the relay was started with (--data-dir, or the same SVC_DATA_DIR / svc.config.json)';

/**
 * `svc audit verify` on the data folder's database, opened for reading only, with the audit tables
 * alone: no migration, no file or folder created, none of the relay's modules started (so none of
 * their start-up warnings about configuration this command does not use). A folder with no relay
 * database, or a database that is not a relay's, is named and left as it was.
 */
export async function verifyDataFolderAuditLog(config: RelayConfig): Promise<VerifyResult> {
  const where = config.database.type === 'sqlite' ? `the data folder ${config.dataDir}` : 'the database at SVC_DATABASE_URL';
  requireSqliteDatabase(config);
  const [{ DataSource }, { AuditEntryEntity }, { AuditStateEntity }, { verifyAuditLog }, { loadAuditHeadKey }, { SqlExecutor }, { TransactionRunner }] = await Promise.all([
    import('typeorm'),
    import('../../audit/audit-entry.entity'),
    import('../../audit/audit-state.entity'),
    import('../../audit/audit-verifier'),
    import('../../audit/audit-head'),
    import('../../database/sql-executor'),
    import('../../database/transaction-runner'),
  ]);
  const source = new DataSource({ ...readOnlyOptions(config), entities: [AuditEntryEntity, AuditStateEntity] });
  try {
    await source.initialize();
    if (!(await hasAuditLog(source))) throw new CliError(`No relay database in ${where} (it has no audit log): ${WHICH_FOLDER}.`);
    const transactions = new TransactionRunner(new SqlExecutor(source));
    return await transactions.run((tx) => verifyAuditLog(tx, loadAuditHeadKey(config, false)));
  } catch (err) {
    if (err instanceof CliError || config.database.type !== 'sqlite') throw err;
    throw new CliError(`${config.database.path} is not a relay database (${(err as Error).message}): ${WHICH_FOLDER}.`);
  } finally {
    if (source.isInitialized) await source.destroy();
  }
}

/** An audit command on a folder with no relay database names it, rather than making one there. */
export function requireSqliteDatabase(config: RelayConfig): void {
  if (config.database.type === 'sqlite' && !existsSync(config.database.path)) {
    throw new CliError(`No relay database in the data folder ${config.dataDir} (no svc.sqlite there): ${WHICH_FOLDER}.`);
  }
}

async function hasAuditLog(source: import('typeorm').DataSource): Promise<boolean> {
  const runner = source.createQueryRunner();
  try {
    return (await runner.hasTable('audit_state')) && (await runner.hasColumn('audit_state', 'head_mac'));
  } finally {
    await runner.release();
  }
}

function readOnlyOptions(config: RelayConfig): DataSourceOptions {
  if (config.database.type === 'postgres') return { type: 'postgres', url: config.database.url, poolSize: 1, migrationsRun: false, synchronize: false };
  return {
    type: 'better-sqlite3',
    database: config.database.path,
    readonly: true,
    fileMustExist: true,
    migrationsRun: false,
    synchronize: false,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => void db.pragma('busy_timeout = 5000'),
  };
}
