import { Injectable } from '@nestjs/common';
import type { BuildGateState } from './build.entity';
import { BuildsRepository } from './builds.repository';

/**
 * The release gate's state beside each build, for the list's `gate` filter (docs/release-gate.md).
 * The release-gate module, above builds, decides the gate and records it here; the builds module
 * only stores and filters it, and never reads the gate itself.
 */
@Injectable()
export class BuildGateStates {
  constructor(private readonly builds: BuildsRepository) {}

  /** `null`: no gate (no policy applies, or not decided). */
  record(buildId: number, state: BuildGateState | null): Promise<void> {
    return this.builds.setGateState(buildId, state);
  }
}
