import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import { auditEvent, RELAY_ACTOR } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { BuildDoneGuards } from '../builds/build-done-guards';
import { BuildGateStates } from '../builds/build-gate-states';
import type { BuildEntity } from '../builds/build.entity';
import { BuildQueryService } from '../builds/build-query.service';
import { BuildContentsService } from '../builds/contents/build-contents.service';
import { BuildVerdictsService } from '../builds/provenance/build-verdicts.service';
import { Clock } from '../common/clock';
import { HttpError } from '../common/errors/http-error';
import { TransactionRunner } from '../database/transaction-runner';
import { PublicUrlService } from '../relay/public-url.service';
import { DEVICE_TEST_RESULTS, DeviceTestResults } from './device-test-results';
import { GateChangedEvent } from './events/gate-changed.event';
import { describeGate, evaluateGate, GateCheck, GateComparison, GateDeviceTests } from './gate-evaluation';
import { GatePoliciesService, PolicySource } from './gate-policies.service';
import type { GateState } from './release-gate.entities';
import { ReleaseGateRepository } from './release-gate.repository';

/** A build's gate as the API, the build page and the forge status show it. */
export interface GateChecklist {
  buildId: number;
  state: GateState | 'none';
  /** Where the policy comes from; null when none applies (state `none`). */
  policy: { scope: 'app' | 'default'; source: PolicySource; blockDone: boolean } | null;
  /** The build the change rules compared with (the previous of the same app and platform), or null. */
  comparedWith: number | null;
  checks: GateCheck[];
  /** One line: the state and what is missing. */
  description: string;
}

/** Unpublished gate changes handed on per start-up step. */
const REPUBLISH_BATCH = 200;

/**
 * The release gate of each build (docs/release-gate.md): evaluated from its policy, reviews, the
 * comparison with the previous build and the device-test results whenever one of them changes;
 * a change is stored, audited and emitted (GateChangedEvent: forge status, webhooks), one
 * evaluation per build at a time.
 */
@Injectable()
export class ReleaseGateService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('ReleaseGate');
  private readonly chains = new Map<number, Promise<unknown>>();
  /** One evaluation holds the database lock at a time in this process (database-lock.ts: it keeps a pooled connection). */
  private holder: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repository: ReleaseGateRepository,
    private readonly policies: GatePoliciesService,
    private readonly builds: BuildQueryService,
    private readonly contents: BuildContentsService,
    private readonly verdicts: BuildVerdictsService,
    private readonly apps: AppCatalogue,
    private readonly publicUrl: PublicUrlService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly doneGuards: BuildDoneGuards,
    private readonly gateStates: BuildGateStates,
    private readonly transactions: TransactionRunner,
    @Optional() @Inject(DEVICE_TEST_RESULTS) private readonly deviceTests?: DeviceTestResults,
  ) {}

  onModuleInit(): void {
    this.doneGuards.register((buildId) => this.doneRefusal(buildId));
  }

  /** A relay stopped between a gate change and its hand-over hands it on now (in the background). */
  onApplicationBootstrap(): void {
    void (async () => {
      for (const buildId of await this.repository.unpublished(REPUBLISH_BATCH)) await this.refresh(buildId, true);
    })().catch((err: unknown) => this.logger.error(`Release gate start-up: ${(err as Error)?.stack ?? err}`));
  }

  /**
   * Evaluates the gate now and stores (and hands on) a change; resolves with the checklist. 404 for
   * an unknown build. One evaluation of a build at a time across every relay instance: in this
   * process a chain per build, across instances sharing PostgreSQL the database lock of the build
   * held from the evaluation's first read until its change is handed on, so an instance that read
   * older reviews never stores (or queues at the forge) its state after a newer one.
   */
  refresh(buildId: number, force = false): Promise<GateChecklist> {
    const previous = this.chains.get(buildId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.holding(() => this.transactions.withLock(`svc.release_gate.${buildId}`, () => this.refreshNow(buildId, force))));
    this.chains.set(buildId, next);
    void next.finally(() => {
      if (this.chains.get(buildId) === next) this.chains.delete(buildId);
    }).catch(() => undefined);
    return next;
  }

  private holding<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.holder.catch(() => undefined).then(work);
    this.holder = turn;
    return turn;
  }

  /**
   * The gates of these builds as last decided, with each one's version, read in one statement (one
   * moment of the database): what the forge status is made from. Builds never decided are absent;
   * their gate reaches the forge when it is first decided (an upload's, a policy change's).
   */
  async decided(buildIds: number[]): Promise<Map<number, { checklist: GateChecklist; version: number }>> {
    const rows = (await this.repository.states(buildIds)).filter((r) => r.checklist);
    return new Map(rows.map((r) => [r.buildId, { checklist: JSON.parse(r.checklist) as GateChecklist, version: r.version }]));
  }

  /** Gate states of these builds as stored (the inbox's rows); builds never evaluated are absent. */
  async statesOf(buildIds: number[]): Promise<Map<number, GateState | 'none'>> {
    return new Map((await this.repository.states(buildIds)).filter((r) => r.checklist).map((r) => [r.buildId, r.state]));
  }

  buildsInState(state: GateState, limit: number): Promise<number[]> {
    return this.repository.buildsInState(state, limit);
  }

  /** The gate re-evaluated for the newest build of each app a policy change reaches (appId null: every app). */
  async refreshForPolicy(appId: number | null): Promise<void> {
    for (const latest of await this.builds.latestPerApp()) {
      if (appId !== null && latest.appId !== appId) continue;
      await this.refresh(latest.id);
    }
  }

  private async refreshNow(buildId: number, force: boolean): Promise<GateChecklist> {
    const checklist = await this.evaluate(buildId);
    const stored = await this.repository.state(buildId);
    const text = JSON.stringify(checklist);
    const unchanged = stored?.checklist === text || (checklist.state === 'none' && (!stored?.checklist || stored.state === 'none'));
    if (unchanged && !(force && stored?.unpublished)) return checklist;
    const at = this.clock.now();
    const from = stored?.checklist ? stored.state : null;
    await this.repository.saveState(buildId, checklist.state, text, at);
    // Beside the build for the list's filter; before the change is marked handed on, so a crash in between writes it again.
    await this.gateStates.record(buildId, checklist.state === 'none' ? null : checklist.state);
    if (from !== checklist.state) {
      this.events.emit(AUDIT_EVENT, auditEvent(RELAY_ACTOR, 'build.gate_changed', `build:${buildId}`, { from, to: checklist.state, description: checklist.description }));
    }
    // Listeners (the forge outbox) queue what they need before resolving; they catch their own errors.
    await this.events.emitAsync(GateChangedEvent.eventName, new GateChangedEvent(buildId, from, checklist.state, at, checklist.description));
    await this.repository.markPublished(buildId, at);
    return checklist;
  }

  private async evaluate(buildId: number): Promise<GateChecklist> {
    const build = await this.builds.get(buildId);
    const app = await this.apps.findById(build.appId);
    const applied = app ? await this.policies.policyFor(app) : null;
    if (!applied) return { buildId, state: 'none', policy: null, comparedWith: null, checks: [], description: 'No release gate policy applies to this build' };
    const { policy } = applied;
    const [reviews, uploader] = await Promise.all([this.repository.reviewsOf(buildId), this.verdicts.uploaderOf(buildId)]);
    const comparison = policy.rules.some((r) => r.when !== 'device_tests') ? await this.comparisonOf(build) : { previousId: null };
    const deviceTests = policy.rules.some((r) => r.when === 'device_tests') ? await this.deviceTestsOf(buildId) : { state: 'none' as const };
    const base = this.publicUrl.publicBaseUrl();
    const verdict = evaluateGate({
      policy,
      reviews: reviews.map((r) => ({
        id: r.id,
        reviewerId: r.reviewerId,
        name: r.reviewerDisplayName || r.reviewerEmail.split('@')[0],
        role: r.reviewerRole,
        verdict: r.verdict,
        comment: r.comment,
        carriedFromBuildId: r.carriedFromBuildId,
      })),
      uploaderId: uploader?.userId ?? null,
      comparison,
      deviceTests,
      links: { reviews: base ? `${base}/builds/${buildId}#release-gate` : null, comparison: base ? `${base}/builds/${buildId}#compare` : null },
    });
    return {
      buildId,
      state: verdict.state,
      policy: { scope: applied.scope, source: applied.source, blockDone: policy.blockDone },
      comparedWith: comparison.previousId,
      checks: verdict.checks,
      description: describeGate(verdict),
    };
  }

  /** What changed since the previous build of the same app and platform (the comparison the build page shows). */
  async comparisonOf(build: Pick<BuildEntity, 'id'>): Promise<GateComparison> {
    const { earlier } = await this.contents.contentsOf(build.id);
    if (earlier.previousId === null) return { previousId: null };
    try {
      return { previousId: earlier.previousId, body: await this.contents.compare(build.id, 'previous') };
    } catch (err) {
      if (err instanceof HttpError && err.getStatus() < 500) return { previousId: earlier.previousId, unavailable: err.message };
      throw err;
    }
  }

  private async deviceTestsOf(buildId: number): Promise<GateDeviceTests> {
    if (!this.deviceTests) return { state: 'none' };
    try {
      return await this.deviceTests.forBuild(buildId);
    } catch (err) {
      this.logger.warn(`Device test results of build ${buildId} not read: ${(err as Error)?.message ?? err}`);
      return { state: 'none' };
    }
  }

  /** `blockDone`: the sentence PATCH status_label Done answers 409 with while the gate has not passed. */
  private async doneRefusal(buildId: number): Promise<string | null> {
    if (!(await this.blocksDone(buildId))) return null;
    const checklist = await unlessMissing(this.refresh(buildId));
    if (!checklist?.policy?.blockDone || checklist.state === 'passed') return null;
    return `Build ${buildId} cannot be marked Done while its release gate is ${checklist.state} (${checklist.description.replace(/^Release gate \w+: /, '')}); Rejected is still possible`;
  }

  /**
   * Whether the policy that applies to this build blocks Done: read without the evaluation's turn.
   * Every Done used to be decided through refresh(), one evaluation at a time per process holding
   * the database lock; on the PostgreSQL soak (no policy at all) those turns queued status changes
   * for up to 2.4 s at p99 (docs/decisions.md#issue-42-done-guard). The gate's inputs do not include
   * the status, so nothing else needed that evaluation. An unknown build blocks nothing: the change answers 404 itself.
   */
  private async blocksDone(buildId: number): Promise<boolean> {
    if (!(await this.policies.anyPolicy())) return false;
    const build = await unlessMissing(this.builds.get(buildId));
    const app = build && (await this.apps.findById(build.appId));
    return Boolean(app && (await this.policies.policyFor(app))?.policy.blockDone);
  }
}

/** Null for a build that is not there (404): the status change answers that itself. */
function unlessMissing<T>(work: Promise<T>): Promise<T | null> {
  return work.catch((err: unknown) => {
    if (err instanceof HttpError && err.getStatus() === 404) return null;
    throw err;
  });
}
