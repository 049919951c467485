import { Injectable } from '@nestjs/common';
import type { BuildStatus } from './build-status';

/** How many endpoints a change of status from `previous` to `next` notifies, as one notifier counts them. */
export type AudienceCount = (previous: BuildStatus | null, next: BuildStatus | null) => Promise<number>;

/**
 * Who hears of a status change outside the relay, for the answer of PATCH /builds/:id (the
 * X-Webhooks-Notified header). The modules that notify sit above builds (they listen to its events),
 * so they register their count here in `onModuleInit` (webhooks: its endpoints and firing rule)
 * instead of builds importing them.
 */
@Injectable()
export class StatusChangeAudience {
  private readonly counts: AudienceCount[] = [];

  register(count: AudienceCount): void {
    this.counts.push(count);
  }

  async notifiedBy(previous: BuildStatus | null, next: BuildStatus | null): Promise<number> {
    let total = 0;
    for (const count of this.counts) total += await count(previous, next);
    return total;
  }
}
