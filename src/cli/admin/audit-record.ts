import type { AuditLogService } from '../../audit/audit-log.service';
import type { RelayConfig } from '../../config/relay-config';

/** Tries while a running relay holds SQLite's write lock (docs/audit.md). */
const ATTEMPTS = 20;
const PAUSE_MS = 250;

/**
 * Records an operator command (`svc backup`, `svc restore`) in the audit log of the data dir it
 * acted on, as the CLI actor, after the command's own work, through the relay's modules. A relay
 * running on the same SQLite file may hold the write lock: the append reads the chain's head and
 * then writes, and SQLite answers "database is locked" at once (not after its busy timeout) when a
 * read transaction cannot become a write one, so it is tried again in a fresh transaction.
 */
export async function recordCliAction(
  config: RelayConfig,
  action: string,
  details: Record<string, string | number | boolean | null>,
): Promise<void> {
  const { auditEvent, CLI_ACTOR } = await import('../../audit/audit-actor');
  await withAuditLog(config, (log) => log.append(auditEvent(CLI_ACTOR, action, null, details)));
}

/** `svc audit accept-head`: the operator vouches for the log as it stands (docs/audit.md). */
export async function acceptAuditHead(config: RelayConfig): Promise<void> {
  const { CLI_ACTOR } = await import('../../audit/audit-actor');
  await withAuditLog(config, (log) => log.acceptHead(CLI_ACTOR));
}

/** `write` with the data dir's audit log, tried again while a running relay holds SQLite's write lock. */
async function withAuditLog(config: RelayConfig, write: (log: AuditLogService) => Promise<unknown>): Promise<void> {
  const [{ withRelayContext }, { AuditLogService }] = await Promise.all([import('./relay-context'), import('../../audit/audit-log.service')]);
  await withRelayContext(config, async (app) => {
    const log = app.get(AuditLogService, { strict: false });
    for (let attempt = 1; ; attempt++) {
      try {
        await write(log);
        return;
      } catch (err) {
        if (attempt >= ATTEMPTS || !/database is locked|SQLITE_BUSY/i.test(String((err as Error).message))) throw err;
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    }
  });
}
