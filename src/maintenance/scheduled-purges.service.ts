import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AgentResourcesService } from '../agents/resources/agent-resources.service';
import { RELAY_ACTOR } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { SessionsService } from '../auth/sessions.service';
import { BuildRetentionService } from '../builds/build-retention.service';
import { ResumableUploadsService } from '../builds/resumable/resumable-uploads.service';
import { RecordingsService } from '../recordings/recordings.service';
import { HubSessionEvidence } from '../device-tests/evidence/hub-session-evidence.service';
import { ClusterBus } from '../cluster/cluster-bus';
import { sweepTempUploads } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../storage/storage-paths';
import { HOUR_MS, MINUTE_MS } from '../common/time';
import { InvitationsService } from '../invitations/invitations.service';
import { PasswordResetService } from '../password-reset/password-reset.service';
import { RelayMetrics } from '../metrics/relay-metrics';
import { StoredFileOwners, type OrphanSweepJob } from '../storage/stored-file-owners';

/**
 * With several instances, each round holds a lock in Redis so one instance runs it at a time; the
 * lock expires after this even if its holder died mid-round. Far above a round's length.
 */
export const PURGE_LOCK_TTL_MS = 15 * MINUTE_MS;

/**
 * Every scheduled clean-up in one place: each runs once at start-up and then on its schedule.
 * Tests call the methods directly after moving the clock. A failing purge is logged and retried
 * on the next tick; it never takes the relay down. With Redis (docs/scaling.md) every instance has
 * the schedule, and a lock lets one of them run each round while the others skip it.
 */
@Injectable()
export class ScheduledPurgesService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Purge');
  /** The orphan sweeps running now, by job name. */
  private readonly sweeping = new Set<string>();

  constructor(
    private readonly sessions: SessionsService,
    private readonly builds: BuildRetentionService,
    private readonly agentResources: AgentResourcesService,
    private readonly recordings: RecordingsService,
    private readonly deviceTestEvidence: HubSessionEvidence,
    private readonly invitations: InvitationsService,
    private readonly resets: PasswordResetService,
    private readonly resumableUploads: ResumableUploadsService,
    private readonly paths: StoragePaths,
    private readonly metrics: RelayMetrics,
    private readonly bus: ClusterBus,
    private readonly fileOwners: StoredFileOwners,
    private readonly audit: AuditLogService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Only the relay signs a head anew (docs/audit.md), never a CLI command on its data folder.
    await this.audit.signHeadAtStart(RELAY_ACTOR).catch((err: Error) => this.logger.error(`Could not sign the audit log head: ${err.message}`, err.stack));
    // Entries a relay killed between a commit and its chaining left waiting (docs/audit.md).
    this.audit.chainPending();
    await this.sweepAfterCrash({ waitForBackground: false });
    await this.runAll();
  }

  /**
   * The start-up sweep. Before the relay listens nothing is being uploaded or committed, so
   * whatever a crash (kill -9, power loss) left half-done is removed without a grace period:
   * partial temp files of every uploader, and every registered owner's stored files (build files,
   * images, recordings) no row points at.
   * The owners that sweep in the background (the builds folder, in slices: minutes at a million
   * builds) are started and, at start-up, not waited for: the relay listens while they run. Their
   * cutoff is taken as they start, so files stored once the relay listens are still spared.
   * Not with several instances: the others are uploading and committing right now, so their files
   * are left to the regular sweeps, which keep a grace period.
   */
  async sweepAfterCrash({ waitForBackground = true } = {}): Promise<void> {
    if (this.bus.clustered) return;
    const now = Date.now();
    await this.guarded('partial uploads', () => sweepTempUploads(this.paths.tmp, now));
    const background: Promise<void>[] = [];
    for (const job of this.fileOwners.jobs()) {
      const sweep = this.sweepOrphans(job, 0);
      if (job.inBackground) background.push(sweep);
      else await sweep;
    }
    if (waitForBackground) await Promise.all(background);
  }

  /** Every purge of the minute; false when another instance is running them (nothing done here). */
  @Cron(CronExpression.EVERY_MINUTE, { name: 'purge' })
  runAll(): Promise<boolean> {
    return this.bus.exclusive('purge', PURGE_LOCK_TTL_MS, () => this.purgeAll());
  }

  private async purgeAll(): Promise<void> {
    await this.guarded('expired sessions', () => this.sessions.purgeExpired());
    await this.guarded('builds past their deletion time', () => this.builds.purgeDue());
    for (const job of this.fileOwners.jobs('minute')) await this.sweepOrphans(job);
    await this.guarded('partial uploads idle for an hour', () => sweepTempUploads(this.paths.tmp, Date.now() - HOUR_MS));
    await this.guarded('resumable uploads past 24 hours', () => this.resumableUploads.sweepExpired());
    await this.guarded('agent resource samples older than 30 days', () => this.agentResources.purgeExpired());
    await this.guarded('recordings past 72 hours', () => this.recordings.purgeExpired());
    await this.guarded('device-test evidence past 72 hours', () => this.deviceTestEvidence.purgeExpired());
    await this.guarded('expired invitations', () => this.invitations.purgeExpired());
    await this.guarded('used or expired reset links', () => this.resets.purgeStale());
    await this.guarded('audit entries past their retention', () => this.audit.pruneExpired(RELAY_ACTOR));
    // Another instance's, killed between a commit and its chaining: any instance's writer chains them
    // (and tries again the ones the database refused).
    this.audit.chainPending(true);
  }

  @Cron(CronExpression.EVERY_HOUR, { name: 'sweep-uploads' })
  sweepUploads(): Promise<boolean> {
    return this.bus.exclusive('sweep-uploads', PURGE_LOCK_TTL_MS, () => this.sweepOrphanUploads());
  }

  /**
   * The hourly orphan sweeps (stored images no row points at: attachments of comments removed with
   * their build, avatars and logos left by a crash between steps; recordings), each sparing files
   * younger than `graceMs`, or than its owner's grace period when not given.
   */
  async sweepOrphanUploads(graceMs?: number): Promise<void> {
    for (const job of this.fileOwners.jobs('hour')) await this.sweepOrphans(job, graceMs);
  }

  /**
   * One job of the registered owners' orphan sweeps: owners sharing a name are swept together. A job
   * still running (the start-up's, or a long one from the last minute) is skipped, never doubled.
   */
  private sweepOrphans(job: OrphanSweepJob, graceMs?: number): Promise<void> {
    if (this.sweeping.has(job.orphans)) {
      this.logger.log(`Sweeping ${job.orphans}: the last sweep is still running, this round skips it`);
      return Promise.resolve();
    }
    const sweep = this.guarded(job.orphans, () => Promise.all(job.owners.map((owner) => owner.sweepOrphans(graceMs ?? owner.graceMs))));
    this.sweeping.add(job.orphans);
    return sweep.finally(() => this.sweeping.delete(job.orphans));
  }

  private async guarded(what: string, purge: () => Promise<unknown>): Promise<void> {
    const job = jobName(what);
    try {
      await purge();
      this.metrics.maintenanceRun(job, 'ok');
    } catch (err) {
      this.metrics.maintenanceRun(job, 'failed');
      this.logger.error(`Purging ${what} failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}

/** The metrics label of a purge: its description as snake_case ("expired sessions" → expired_sessions). */
export function jobName(what: string): string {
  return what.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}
