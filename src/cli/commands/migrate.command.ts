import { Command } from 'commander';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';
import { formatBytes, printJson } from '../output';

export function migrateCommand(): Command {
  return withOperatorOptions(
    new Command('migrate')
      .description('Copy this SQLite install (rows, and files with --storage) to PostgreSQL (and object storage), verified; the source is left untouched')
      .requiredOption('--to <url>', 'the target: an empty PostgreSQL database, postgres://user:pass@host/db')
      .option('--storage <url>', 'also copy every stored file to object storage, s3://bucket[/prefix] (SVC_S3_* and AWS_* as for the relay)')
      .option('--json', 'print the report as JSON'),
  )
    .addHelpText(
      'after',
      `
Stop the relay first (the copy is a snapshot of the moment it starts). Every table is verified by
row count and checksum, every file by SHA-256 read back from the target. Cut over by starting the
relay with SVC_DATABASE_URL (and SVC_STORAGE_URL) set to the targets: docs/scaling.md.

Examples:
  $ svc migrate --to postgres://svc:secret@db.internal/svc
  $ svc migrate --data-dir /srv/svc --to postgres://svc@db/svc --storage s3://svc-files/relay`,
    )
    .action(async (options: OperatorOptions & { to: string; storage?: string; json?: boolean }) => {
      const source = operatorConfig(options);
      const target = operatorConfig(options, { SVC_DATABASE_URL: options.to, SVC_STORAGE_URL: options.storage, SVC_REDIS_URL: '' });
      const { migrateInstall } = await import('../migrate/migrate-install');
      const report = await migrateInstall(source, target);
      if (options.json) return printJson(report);
      const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
      const bytes = report.files.reduce((sum, f) => sum + f.bytes, 0);
      process.stdout.write(
        `Copied and verified ${rows} row(s) in ${report.tables.length} table(s)` +
          (options.storage
            ? ` and ${report.files.length} file(s) (${formatBytes(bytes)}) to ${report.storage}.\n`
            : `. Stored files stay in ${report.storage}: point the new relay's SVC_DATA_DIR at it.\n`),
      );
    });
}
