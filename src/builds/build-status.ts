export const BUILD_STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

/**
 * Done and Rejected are final: the one rule behind a build's completed_at (set on reaching a final
 * status, kept between the two, cleared on leaving them; at upload too) and the webhook firing rule
 * (a change to a final status notifies).
 */
export const FINAL_STATUSES = ['Done', 'Rejected'] as const satisfies readonly BuildStatus[];
export type FinalStatus = (typeof FINAL_STATUSES)[number];

export function isFinalStatus(status: BuildStatus | null | undefined): status is FinalStatus {
  return status === 'Done' || status === 'Rejected';
}

/** A change that reaches a final status (Done → Rejected included; Done → Done is no change). */
export function changedToFinal(previous: BuildStatus | null, next: BuildStatus | null): boolean {
  return isFinalStatus(next) && next !== previous;
}

/** The member who set a status (history, live events): what the principal of the request carried. */
export interface StatusActor {
  userId: number;
  email: string;
  displayName: string | null;
}

/** What every surface calls a build without a status (commit status, pull-request comment, dashboard). */
export const NO_STATUS = 'No status';

/**
 * The words for a status, the same on every surface (issue 40 item 6): the spec's four names,
 * "No status" for none, and "by <who>" after a verdict: "Done by Ann", "Rejected by Bob",
 * "In Progress". The dashboard's copy is web/src/builds/status/status-words.ts.
 */
export function statusWords(status: BuildStatus | null, decidedBy?: string | null): string {
  const name = status ?? NO_STATUS;
  return isFinalStatus(status) && decidedBy ? `${name} by ${decidedBy}` : name;
}
