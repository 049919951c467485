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
