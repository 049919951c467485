import { Command } from 'commander';
import { basename } from 'node:path';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';
import { formatBytes, printJson } from '../output';

export function backupCommand(): Command {
  return withOperatorOptions(
    new Command('backup')
      .description('Write a backup archive (tar) of the relay\'s database and stored files; safe while the relay runs')
      .argument('<file>', 'archive to write, e.g. svc-backup-2025-01-31.tar')
      .option('--json', 'print the manifest as JSON'),
  )
    .addHelpText(
      'after',
      `
The archive holds a consistent copy of the SQLite database (VACUUM INTO), every stored file
(builds, avatars, logos, attachments, recordings) and manifest.json with their sizes and SHA-256.

Examples:
  $ svc backup /backups/svc-$(date +%F).tar
  $ svc backup svc.tar --data-dir /srv/svc --json`,
    )
    .action(async (file: string, options: OperatorOptions & { json?: boolean }) => {
      const config = operatorConfig(options);
      const { createBackup } = await import('../backup/create-backup');
      const manifest = await createBackup(config, file);
      const { recordCliAction } = await import('../admin/audit-record');
      await recordCliAction(config, 'backup.created', { file: basename(file), files: manifest.files.length, database_bytes: manifest.database.bytes });
      if (options.json) return printJson(manifest);
      const fileBytes = manifest.files.reduce((sum, f) => sum + f.bytes, 0);
      process.stdout.write(
        `Backup written to ${file}: database ${formatBytes(manifest.database.bytes)}, ` +
          `${manifest.files.length} stored file(s) ${formatBytes(fileBytes)}` +
          (manifest.skipped.length ? `; ${manifest.skipped.length} file(s) vanished while copying` : '') +
          '\n',
      );
    });
}

export function restoreCommand(): Command {
  return withOperatorOptions(
    new Command('restore')
      .description('Restore a backup archive into the data dir (the relay must not be running on it)')
      .argument('<file>', 'archive written by `svc backup`')
      .option('--force', 'replace the database and stored files already in the data dir'),
  )
    .addHelpText(
      'after',
      `
Every file is checked against the manifest and the database against SQLite's integrity check
before anything in the data dir is touched. Start the relay afterwards; migrations run as usual.

Examples:
  $ svc restore /backups/svc-2025-01-31.tar --data-dir /srv/svc-new
  $ systemctl stop svc-relay && svc restore svc.tar --force && systemctl start svc-relay`,
    )
    .action(async (file: string, options: OperatorOptions & { force?: boolean }) => {
      const config = operatorConfig(options);
      const { restoreBackup } = await import('../backup/restore-backup');
      const manifest = await restoreBackup(config, file, !!options.force);
      const { recordCliAction } = await import('../admin/audit-record');
      await recordCliAction(config, 'backup.restored', { file: basename(file), taken_at: manifest.createdAt, files: manifest.files.length });
      process.stdout.write(
        `Restored ${file} (taken ${manifest.createdAt}) into ${config.dataDir}: database and ${manifest.files.length} stored file(s).\n`,
      );
    });
}
