import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../../common/clock';
import { ClusterBus } from '../../cluster/cluster-bus';
import { HubSessionEndedEvent, HubSessionMarkedEvent, HubSessionStartedEvent } from '../hub/hub-session.events';
import { TestRunsRepository } from './test-runs.repository';
import { DEFAULT_RUN_NAME, TestRunsService } from './test-runs.service';

/**
 * Writes each hub session of a build into its run (`svc:name`, else `default`) when it starts and
 * when it ends, with the instance running it and its client's svc:status (kept when given, so
 * another instance and a restarted relay read it); when the last running session of a run ends,
 * the run is completed. Listeners never throw; a mark and an end wait for the start's row.
 */
@Injectable()
export class HubRunSessions {
  private readonly logger = new Logger('DeviceTests');
  private readonly starts = new Map<string, Promise<void>>();

  constructor(
    private readonly runs: TestRunsRepository,
    private readonly service: TestRunsService,
    private readonly clock: Clock,
    private readonly bus: ClusterBus,
  ) {}

  @OnEvent(HubSessionStartedEvent.eventName)
  started(event: HubSessionStartedEvent): Promise<void> {
    if (event.buildId === null) return Promise.resolve();
    const buildId = event.buildId;
    const write = (async () => {
      const at = this.clock.now();
      const runId = await this.runs.runFor(buildId, (event.runName ?? DEFAULT_RUN_NAME).slice(0, 200), at);
      await this.runs.insertSession({ hubSessionId: event.hubSessionId, runId, deviceSessionId: event.deviceSessionId, userId: event.userId, startedAt: at, instanceId: this.bus.instanceId });
    })().catch((err: Error) => this.logger.error(`Recording hub session ${event.hubSessionId} in its run failed: ${err.message}`));
    this.starts.set(event.hubSessionId, write);
    return write;
  }

  @OnEvent(HubSessionMarkedEvent.eventName)
  async marked(event: HubSessionMarkedEvent): Promise<void> {
    if (event.buildId === null) return;
    try {
      await this.starts.get(event.hubSessionId);
      await this.runs.markSession(event.hubSessionId, event.verdict.status, event.verdict.reason);
    } catch (err) {
      this.logger.error(`Keeping hub session ${event.hubSessionId}'s svc:status failed: ${(err as Error).message}`);
    }
  }

  @OnEvent(HubSessionEndedEvent.eventName)
  async ended(event: HubSessionEndedEvent): Promise<void> {
    if (event.buildId === null) return;
    try {
      await this.starts.get(event.hubSessionId);
      this.starts.delete(event.hubSessionId);
      const at = this.clock.now();
      const status = event.verdict?.status ?? 'ended';
      const runId = await this.runs.endSession(event.hubSessionId, status, event.verdict?.reason ?? null, event.reason, at);
      if (runId === null) return;
      const run = (await this.service.gather(event.buildId)).find((r) => r.run.id === runId);
      if (run && !run.sessions.some((s) => s.status === 'running')) this.service.completed(run, at);
    } catch (err) {
      this.logger.error(`Ending hub session ${event.hubSessionId} in its run failed: ${(err as Error).message}`);
    }
  }
}
