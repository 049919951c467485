import type { BuildStatus } from '../../api/client';

/** What every surface calls a build without a status (the server's copy: NO_STATUS in src/builds/build-status.ts). */
export const NO_STATUS = 'No status';

/**
 * The words for a status, the same as the commit status and the pull-request comment say them
 * (src/builds/build-status.ts `statusWords`): the spec's four names, "No status", "by <who>" after a verdict.
 */
export function statusWords(status: BuildStatus | null, decidedBy?: string | null): string {
  const name = status ?? NO_STATUS;
  return (status === 'Done' || status === 'Rejected') && decidedBy ? `${name} by ${decidedBy}` : name;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Every notice a change sent, as the relay counted it: "2 webhooks and 1 forge status notified";
 * for a verdict that reached nobody, "no webhook or forge to notify"; '' for a change nobody hears of.
 */
export function noticesText(status: BuildStatus | null, webhooks: number, forgeStatuses: number): string {
  const sent = [webhooks > 0 && count(webhooks, 'webhook', 'webhooks'), forgeStatuses > 0 && count(forgeStatuses, 'forge status', 'forge statuses')].filter(Boolean);
  if (sent.length) return `${sent.join(' and ')} notified`;
  return status === 'Done' || status === 'Rejected' ? 'no webhook or forge to notify' : '';
}
