import { Command } from 'commander';
import { CliError } from '../../relay-client/client-errors';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';
import { printJson } from '../output';

export function auditCommand(): Command {
  const audit = new Command('audit').description('The audit log on this machine\'s data dir (docs/audit.md)');
  audit.addCommand(verifyCommand());
  audit.addCommand(acceptHeadCommand());
  return audit;
}

function verifyCommand(): Command {
  return withOperatorOptions(
    new Command('verify')
      .description('Recompute the audit log\'s hash chain from the database; exit 1 naming the first broken entry')
      .option('--json', 'print { ok, checked, anchor_id, broken_id, reason, head_signed_at, pending } as JSON'),
  )
    .addHelpText(
      'after',
      `
Reads every kept entry in id order, starting from the anchor left by retention, and checks that
each one's prev_hash is the hash of the one before and that its hash matches its content; then that
the head the relay signed (entry count, newest entry, anchor) holds, with its key: SVC_SECRETS_KEY,
or the data folder's audit-head.key. An edited, deleted or inserted row is reported. Reads only: a
folder with no relay database is named (exit 1), nothing is created.

Examples:
  $ svc audit verify
  $ svc audit verify --data-dir /srv/svc --json`,
    )
    .action(async (options: OperatorOptions & { json?: boolean }) => {
      const config = operatorConfig(options);
      const { verifyDataFolderAuditLog } = await import('../admin/audit-log-reader');
      const result = await verifyDataFolderAuditLog(config);
      if (options.json) {
        printJson({
          ok: !result.broken,
          checked: result.checked,
          anchor_id: result.anchorId,
          broken_id: result.broken?.id ?? null,
          reason: result.broken?.reason ?? null,
          head_signed_at: result.signedAt,
          pending: result.pending,
        });
        if (result.broken) process.exitCode = 1;
        return;
      }
      if (result.broken) {
        const which = result.broken.id === null ? 'The audit log' : `Audit entry ${result.broken.id}`;
        throw new CliError(`${which} is broken: ${result.broken.reason} (${result.checked} entries verified before it)`);
      }
      const from = result.anchorId === null ? 'from the first entry' : `from the anchor after pruned entry ${result.anchorId}`;
      process.stdout.write(`Audit log intact: ${result.checked} entries verified ${from}.\n`);
      // Not a break, but what came before these entries is vouched for by the chain alone.
      if (result.signedAt.length) process.stdout.write(`The relay signed the head anew at entries ${result.signedAt.join(', ')} (audit.head_signed).\n`);
      // Committed with their actions and not chained yet: a running relay chains them within moments, a stopped one at its start.
      if (result.pending) process.stdout.write(`${result.pending} ${result.pending === 1 ? 'entry waits' : 'entries wait'} to be chained (audit_pending); the relay chains them as it runs, or at its next start.\n`);
    });
}

function acceptHeadCommand(): Command {
  return withOperatorOptions(new Command('accept-head').description('Sign the audit log\'s head as the table stands, after looking into a break'))
    .addHelpText(
      'after',
      `
The relay signs the head by itself only for a new log or one from before the signed head; any other
unsigned or mis-signed head stays a break in svc audit verify. Once you know why (a database
restored where its key is not, a deliberate reset, entries you know were removed), this signs the
head over the entries kept now, with SVC_SECRETS_KEY or the data folder's audit-head.key (made if
missing), and appends audit.head_signed (reason accepted, the entry count), which svc audit verify
lists from then on. Works while the relay runs.

Examples:
  $ svc audit verify
  $ svc audit accept-head --data-dir /srv/svc`,
    )
    .action(async (options: OperatorOptions) => {
      const config = operatorConfig(options);
      const [{ requireSqliteDatabase }, { acceptAuditHead }] = await Promise.all([import('../admin/audit-log-reader'), import('../admin/audit-record')]);
      requireSqliteDatabase(config);
      await acceptAuditHead(config);
      process.stdout.write('Audit log head signed as the table stands (audit.head_signed, reason accepted).\n');
    });
}
