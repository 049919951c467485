import { Injectable, OnModuleInit } from '@nestjs/common';
import { BuildRejectGuards } from '../builds/build-done-guards';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import { CommentsRepository } from './comments.repository';

/** How long before the change the member's comment counts as the reason (the dialog posts it just before). */
export const REASON_WINDOW_MS = 10 * 60_000;

/**
 * "Rejecting asks for a reason" (issue 40 item 6, docs/builds.md): the spec's PATCH carries no
 * reason, so the reason is a comment by the same member on the build within REASON_WINDOW_MS.
 */
@Injectable()
export class RejectReasonGuard implements OnModuleInit {
  constructor(
    private readonly guards: BuildRejectGuards,
    private readonly settings: SettingsService,
    private readonly comments: CommentsRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.guards.register((buildId, actor) => this.refusal(buildId, actor));
  }

  private async refusal(buildId: number, actor: Principal): Promise<string | null> {
    if (!(await this.settings.reviewPolicy()).reject_reason_required) return null;
    const since = this.clock.nowMs() - REASON_WINDOW_MS;
    if (await this.comments.commentedSince(buildId, actor.userId, since)) return null;
    return 'This team asks for a reason when rejecting: comment on the build first';
  }
}
