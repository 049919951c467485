import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';

/** Answers why a build may not take a status now (a sentence), or null when it may. */
export type StatusGuard = (buildId: number, actor: Principal) => Promise<string | null>;
/** A guard of Done reads the build alone. */
export type DoneGuard = (buildId: number) => Promise<string | null>;

/** Guards registered by modules above builds; the first refusal wins. */
class StatusGuards {
  private readonly guards: StatusGuard[] = [];

  register(guard: StatusGuard): void {
    this.guards.push(guard);
  }

  async refusalOf(buildId: number, actor: Principal): Promise<string | null> {
    for (const guard of this.guards) {
      const refusal = await guard(buildId, actor);
      if (refusal) return refusal;
    }
    return null;
  }
}

/**
 * Modules above builds that may refuse a change of status to Done (the release gate's `blockDone`,
 * docs/release-gate.md) register a guard here; the builds module asks them before the change and
 * answers 409 with the sentence.
 */
@Injectable()
export class BuildDoneGuards extends StatusGuards {}

/**
 * The same for Rejected: the comments module refuses it, when the team asks for a reason, unless
 * the member commented on the build shortly before (docs/builds.md "A reason for rejecting").
 */
@Injectable()
export class BuildRejectGuards extends StatusGuards {}
