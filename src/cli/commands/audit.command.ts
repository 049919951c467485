import { Command } from 'commander';
import { CliError } from '../cli-error';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';
import { printJson } from '../output';

export function auditCommand(): Command {
  const audit = new Command('audit').description('The audit log on this machine\'s data dir (docs/audit.md)');
  audit.addCommand(verifyCommand());
  return audit;
}

function verifyCommand(): Command {
  return withOperatorOptions(
    new Command('verify')
      .description('Recompute the audit log\'s hash chain from the database; exit 1 naming the first broken entry')
      .option('--json', 'print { ok, checked, anchor_id, broken_id, reason } as JSON'),
  )
    .addHelpText(
      'after',
      `
Reads every kept entry in id order, starting from the anchor left by retention, and checks that
each one's prev_hash is the hash of the one before and that its hash matches its content; then that
the newest entry is the one the relay last wrote. An edited, deleted or inserted row is reported.

Examples:
  $ svc audit verify
  $ svc audit verify --data-dir /srv/svc --json`,
    )
    .action(async (options: OperatorOptions & { json?: boolean }) => {
      const config = operatorConfig(options);
      const { withRelayContext } = await import('../admin/relay-context');
      const { AuditVerifier } = await import('../../audit/audit-verifier');
      const result = await withRelayContext(config, (app) => app.get(AuditVerifier, { strict: false }).verify());
      if (options.json) {
        printJson({
          ok: !result.broken,
          checked: result.checked,
          anchor_id: result.anchorId,
          broken_id: result.broken?.id ?? null,
          reason: result.broken?.reason ?? null,
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
    });
}
