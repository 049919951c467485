import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { StatusNoticeCounters } from '../../builds/notices/status-notice-counters';
import { BuildVerdictsService } from '../../builds/provenance/build-verdicts.service';
import { ClusterBus } from '../../cluster/cluster-bus';
import { Clock } from '../../common/clock';
import { HttpError } from '../../common/errors/http-error';
import { isUniqueViolation } from '../../database/unique-violation';
import { CommentsService } from '../../comments/comments.service';
import { PublicUrlService } from '../../relay/public-url.service';
import { ForgeDirectory } from '../forge-directory';
import { ForgeOutboxRepository } from '../outbox/forge-outbox.repository';
import { ForgePullRequestRepository } from '../pull-requests/pull-request.repository';
import { ReleaseGateService } from '../../release-gate/release-gate.service';
import { BuildDeviceTests } from '../../device-tests/runs/build-device-tests';
import { desiredStatuses, DesiredStatus, firstLine, ReviewedBuild } from './commit-status';
import { deviceTestsStatus } from './device-tests-status';
import { gateStatus } from './gate-status';

/** History entries read per step. */
const BATCH = 100;

/**
 * Turns the builds' status history into outbox rows (docs/integrations.md "Delivered like money").
 * The history is written in the same transaction as each upload and status change, so it is the
 * durable record of every verdict; this feed reads it from a cursor kept in forge_feed and moves the
 * cursor in the transaction that queues the statuses. A relay killed after a verdict's commit and
 * before its status was queued queues it on the next start. Runs one step at a time (a chain), on
 * start-up and whenever a build is uploaded, changes status or is commented on.
 */
@Injectable()
export class ForgeStatusFeed implements OnApplicationBootstrap {
  private readonly logger = new Logger('Forges');
  private chain: Promise<unknown> = Promise.resolve();
  private waiting: Promise<void> | null = null;

  constructor(
    private readonly directory: ForgeDirectory,
    private readonly verdicts: BuildVerdictsService,
    private readonly comments: CommentsService,
    private readonly publicUrl: PublicUrlService,
    private readonly outbox: ForgeOutboxRepository,
    private readonly pullRequests: ForgePullRequestRepository,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
    private readonly gates: ReleaseGateService,
    private readonly notices: StatusNoticeCounters,
    private readonly deviceTests: BuildDeviceTests,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.notices.registerForgeStatuses((buildId) => this.statusCountOf(buildId));
    await this.start();
  }

  /**
   * How many statuses a change of this build queues (its commit's: one, or one per platform and the
   * summed-up one), for the answer that tells the reviewer; 0 when no forge serves its repository.
   */
  async statusCountOf(buildId: number): Promise<number> {
    // Asked on every status change: with no forge there is nothing to read.
    if (!this.directory.any) return 0;
    const provenance = await this.verdicts.provenanceOf(buildId);
    if (!provenance?.repository || !provenance.commit || !this.directory.forRepository(provenance.repository)) return 0;
    const platforms = new Set((await this.verdicts.buildsOfCommit(provenance.repository, provenance.commit)).map((b) => b.platform)).size;
    return platforms > 1 ? platforms + 1 : 1;
  }

  /** At start-up, and when a forge is added in the dashboard: the cursor begins (once) and the history is read. */
  async start(): Promise<void> {
    if (!this.directory.any) return;
    // First start with a forge: statuses begin with what happens from now on, not with old builds.
    // Another instance may begin it at the same moment: its cursor is as good as ours.
    if ((await this.outbox.cursor()) === null) await this.outbox.startCursor(await this.verdicts.lastChangeId()).catch((err: unknown) => {
      if (!isUniqueViolation(err)) throw err;
    });
    await this.catchUp();
  }

  /** Reads the history past the cursor into the outbox; resolves when done (errors are logged, the next call retries). */
  catchUp(): Promise<void> {
    // A read not started yet will see whatever this caller wants read: no second one behind it.
    if (this.waiting) return this.waiting;
    const read = this.serially(async () => {
      this.waiting = null;
      // One reader among several instances; the cursor's compare-and-set guards the queue anyway.
      await this.bus.exclusive('forge-feed', 60_000, () => this.readHistory());
    });
    if (this.directory.any) this.waiting = read;
    return read;
  }

  /** The statuses of this build's commit again (a new comment changes the description). */
  refresh(buildId: number): Promise<void> {
    return this.serially(async () => {
      const provenance = await this.verdicts.provenanceOf(buildId);
      if (!provenance?.repository || !provenance.commit) return;
      const statuses = await this.statusesOf(provenance.repository, provenance.commit);
      await this.outbox.enqueue(statuses, null, this.clock.now());
      if (provenance.pullRequest) await this.pullRequests.touch(provenance.repository, provenance.pullRequest, this.clock.now());
    });
  }

  private serially(step: () => Promise<void>): Promise<void> {
    if (!this.directory.any) return Promise.resolve();
    const next = this.chain.then(step).catch((err: unknown) => this.logger.error(`Forge status feed: ${(err as Error)?.stack ?? err}`));
    this.chain = next;
    return next;
  }

  private async readHistory(): Promise<void> {
    for (;;) {
      const from = await this.outbox.cursor();
      if (from === null) return;
      const changes = await this.verdicts.changesAfter(from, BATCH);
      if (!changes.length) return;
      const commits = new Map<string, { repository: string; commit: string }>();
      const pullRequests = new Map<string, { repository: string; number: number }>();
      for (const buildId of new Set(changes.map((c) => c.buildId))) {
        const provenance = await this.verdicts.provenanceOf(buildId);
        if (!provenance?.repository || !this.directory.forRepository(provenance.repository)) continue;
        const { repository, commit, pullRequest } = provenance;
        if (commit) commits.set(`${repository}\n${commit}`, { repository, commit });
        if (pullRequest) pullRequests.set(`${repository}\n${pullRequest}`, { repository, number: pullRequest });
      }
      const statuses = [];
      for (const { repository, commit } of commits.values()) statuses.push(...(await this.statusesOf(repository, commit)));
      // The comment is asked for first: a crash before the cursor moves asks again (harmless), never forgets.
      for (const { repository, number } of pullRequests.values()) await this.pullRequests.touch(repository, number, this.clock.now());
      await this.outbox.enqueue(statuses, { from, to: changes[changes.length - 1].id }, this.clock.now());
    }
  }

  private async statusesOf(repository: string, commit: string): Promise<{ repository: string; commit: string; status: DesiredStatus }[]> {
    const forge = this.directory.forRepository(repository);
    if (!forge) return [];
    const base = this.publicUrl.publicBaseUrl();
    const builds: ReviewedBuild[] = [];
    for (const build of await this.verdicts.buildsOfCommit(repository, commit)) {
      // list() reads its id as the query string gives it; a build deleted meanwhile has no comments (and no page).
      const comments = await this.comments.list(String(build.id)).catch((err: unknown) => {
        if (err instanceof HttpError && err.getStatus() === 404) return [];
        throw err;
      });
      const newest = comments.reduce<(typeof comments)[number] | null>((a, c) => (!a || c.created_at >= a.created_at ? c : a), null);
      builds.push({ ...build, latestComment: newest ? firstLine(newest.body) : null, pageUrl: base ? `${base}/builds/${build.id}` : null });
    }
    const statuses = desiredStatuses(forge.forge.context, builds);
    // The release gate's own status beside the verdict's (docs/release-gate.md), when a policy applies.
    // As decided by the gate (under its build's lock), never evaluated here: an evaluation of our own
    // could be older than one another instance queues meanwhile. The versions let the outbox refuse a
    // status made from older gates than the one it holds (another instance may queue in between).
    const decided = await this.gates.decided(builds.map((b) => b.id));
    const gate = gateStatus(builds.map((build) => ({ build, gate: decided.get(build.id)?.checklist ?? null })));
    if (gate) statuses.push({ ...gate, gateVersions: Object.fromEntries(builds.map((b) => [b.id, decided.get(b.id)?.version ?? 0])) });
    // The device tests' own status (docs/device-tests.md), once a build of the commit was tested.
    const tests = deviceTestsStatus(await Promise.all(builds.map(async (build) => ({ build, tests: await this.deviceTests.summary(build.id) }))));
    if (tests) statuses.push(tests);
    return statuses.map((status) => ({ repository, commit, status }));
  }
}
