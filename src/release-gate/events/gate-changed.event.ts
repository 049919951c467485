import type { GateState } from '../release-gate.entities';

/**
 * A build's release gate changed state or checklist (docs/release-gate.md). Emitted with emitAsync
 * after the change is committed; the forges module's listener queues the commit status before it
 * resolves, and the gate then marks the change handed on.
 */
export class GateChangedEvent {
  static readonly eventName = 'build.gate_changed';
  constructor(
    readonly buildId: number,
    readonly from: GateState | 'none' | null,
    readonly to: GateState | 'none',
    readonly at: Date,
    /** One line: the state and what is missing. */
    readonly description: string,
  ) {}
}

/** A policy was saved or removed (appId null: the team default). */
export class GatePolicyChangedEvent {
  static readonly eventName = 'release-gate.policy_changed';
  constructor(readonly appId: number | null) {}
}

/** A member reviewed a build (committed). */
export class BuildReviewedEvent {
  static readonly eventName = 'build.reviewed';
  constructor(readonly buildId: number) {}
}
