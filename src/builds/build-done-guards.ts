import { Injectable } from '@nestjs/common';

/** Answers why a build may not become Done now (a sentence), or null when it may. */
export type DoneGuard = (buildId: number) => Promise<string | null>;

/**
 * Modules above builds that may refuse a change of status to Done (the release gate's `blockDone`,
 * docs/release-gate.md) register a guard here; the builds module asks them before the change and
 * answers 409 with the sentence. Rejected and the other statuses are never refused.
 */
@Injectable()
export class BuildDoneGuards {
  private readonly guards: DoneGuard[] = [];

  register(guard: DoneGuard): void {
    this.guards.push(guard);
  }

  async refusalOf(buildId: number): Promise<string | null> {
    for (const guard of this.guards) {
      const refusal = await guard(buildId);
      if (refusal) return refusal;
    }
    return null;
  }
}
