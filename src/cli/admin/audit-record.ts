import type { RelayConfig } from '../../config/relay-config';

/**
 * Records an operator command (`svc backup`, `svc restore`) in the audit log of the data dir it
 * acted on, as the CLI actor. Done after the command's own work, through the relay's modules.
 */
export async function recordCliAction(
  config: RelayConfig,
  action: string,
  details: Record<string, string | number | boolean | null>,
): Promise<void> {
  const [{ withRelayContext }, { AuditLogService }, { auditEvent, CLI_ACTOR }] = await Promise.all([
    import('./relay-context'),
    import('../../audit/audit-log.service'),
    import('../../audit/audit-actor'),
  ]);
  await withRelayContext(config, async (app) => {
    await app.get(AuditLogService, { strict: false }).append(auditEvent(CLI_ACTOR, action, null, details));
  });
}
