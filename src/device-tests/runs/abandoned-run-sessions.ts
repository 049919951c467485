import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ClusterBus, PRESENCE_LEASE_MS } from '../../cluster/cluster-bus';
import { Clock } from '../../common/clock';
import { TestRunsRepository } from './test-runs.repository';
import { TestRunsService } from './test-runs.service';

/** Why a session a killed relay left `running` ended (its run lists it so). */
export const RELAY_RESTARTED = 'the relay restarted';

/** Why a session ended that a sibling found left by an instance that is gone (killed, or cut off from Redis). */
export const INSTANCE_LOST = 'its relay instance was lost';

/** How often, in a cluster, each instance looks for sessions of instances that are gone (a killed one may never restart). */
const SWEEP_MS = PRESENCE_LEASE_MS;

/**
 * Hub sessions live in the memory of the instance that runs them; a relay killed mid-session (no
 * shutdown to end them) leaves their rows `running`, and their runs `running`, for good. At
 * start-up the rows of every instance that is gone are ended ("the relay restarted", the client's
 * svc:status kept) and their runs completed. An instance is gone when its presence key lapsed
 * (ClusterBus.alive); alone, every instance but this one is. A sibling restarted within the lease
 * still looks alive, so a clustered instance looks once more after the lease, and then every
 * SWEEP_MS: the siblings of an instance killed for good end its sessions. Each run is completed by
 * the instance whose update ended its sessions, so two sweeping at once complete it once.
 */
@Injectable()
export class AbandonedRunSessions implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DeviceTests');
  private again: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;

  constructor(
    private readonly runs: TestRunsRepository,
    private readonly service: TestRunsService,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.endAbandoned();
    if (!this.bus.clustered) return;
    this.again = setTimeout(() => {
      void this.endAbandoned(INSTANCE_LOST);
      this.sweep = setInterval(() => void this.endAbandoned(INSTANCE_LOST), SWEEP_MS);
      this.sweep.unref?.();
    }, PRESENCE_LEASE_MS + 1000);
    this.again.unref?.();
  }

  onModuleDestroy(): void {
    if (this.again) clearTimeout(this.again);
    if (this.sweep) clearInterval(this.sweep);
  }

  /** Ends the running rows of instances that are gone; how many. Never throws (start-up goes on). */
  async endAbandoned(reason = RELAY_RESTARTED): Promise<number> {
    try {
      const running = await this.runs.runningSessions();
      const alive = new Map<string, boolean>();
      for (const owner of new Set(running.map((s) => s.instanceId))) {
        alive.set(owner ?? '', owner !== null && (await this.bus.alive(owner)));
      }
      const abandoned = running.filter((s) => !alive.get(s.instanceId ?? ''));
      if (!abandoned.length) return 0;
      const at = this.clock.now();
      const runIds = await this.runs.endAbandoned(abandoned.map((s) => s.hubSessionId), reason, at);
      this.logger.warn(`Ended ${abandoned.length} hub session(s) a relay left running (${reason})`);
      await this.completeRuns(new Set(runIds), at);
      return abandoned.length;
    } catch (err) {
      this.logger.error(`Ending hub sessions a relay left running failed: ${(err as Error).message}`);
      return 0;
    }
  }

  /** Runs whose last running session this ended are completed (webhook, PR status), as when a session ends. */
  private async completeRuns(runIds: Set<number>, at: Date): Promise<void> {
    const builds = new Set<number>();
    for (const runId of runIds) {
      const run = await this.runs.run(runId);
      if (run) builds.add(run.buildId);
    }
    for (const buildId of builds) {
      for (const gathered of await this.service.gather(buildId)) {
        if (runIds.has(gathered.run.id) && !gathered.sessions.some((s) => s.status === 'running')) this.service.completed(gathered, at);
      }
      this.service.changed(buildId);
    }
  }
}
