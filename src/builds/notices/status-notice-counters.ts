import { Injectable } from '@nestjs/common';

/** Answer header of PATCH /builds/:id: how many forge statuses (commit statuses, check runs) the change queued. */
export const FORGE_STATUSES_QUEUED_HEADER = 'X-Forge-Statuses-Queued';

/** How many notices of one kind a status change of this build makes (the forges' counter is the only one today; chat would be the next). */
export type NoticeCounter = (buildId: number) => Promise<number>;

/**
 * Lets the modules that tell the outside world of a status change (they import Builds, so Builds
 * cannot import them) say how many notices a change makes, so the one who made it is told every
 * notice sent (issue 40 item 6), not only the webhooks.
 */
@Injectable()
export class StatusNoticeCounters {
  private forges: NoticeCounter | null = null;

  registerForgeStatuses(counter: NoticeCounter): void {
    this.forges = counter;
  }

  /** 0 when no forge module counts (none configured) or the count fails: the change itself succeeded. */
  async forgeStatuses(buildId: number): Promise<number> {
    return this.forges ? this.forges(buildId).catch(() => 0) : 0;
  }
}
