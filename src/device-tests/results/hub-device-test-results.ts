import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { RelayConfig } from '../../config/relay-config';
import { HubSessionEndedEvent, HubSessionStartedEvent } from '../hub/hub-session.events';
import { TestRunsRepository } from '../runs/test-runs.repository';
import { DeviceTestsChangedEvent } from './device-tests-changed.event';

export type DeviceTestState = 'none' | 'running' | 'passed' | 'failed';

/**
 * A build's device-test state from its hub sessions: `running` while any runs here, then `failed`
 * if any session was marked failed (svc:status), `passed` if any was marked passed, else `none`.
 * Which sessions run is this instance's memory, like the sessions themselves; the marks are read
 * from their rows (stored when given: HubRunSessions), so every instance and a restarted relay see
 * them. BuildDeviceTests (runs/) joins it with the JUnit results for the release gate and the PR status.
 */
@Injectable()
export class HubDeviceTestResults {
  private readonly logger = new Logger('WebDriverHub');
  private readonly running = new Map<number, number>();

  constructor(
    private readonly events: EventEmitter2,
    private readonly config: RelayConfig,
    private readonly runs: TestRunsRepository,
  ) {}

  async forBuild(buildId: number): Promise<{ state: DeviceTestState; url?: string }> {
    const url = this.config.relayUrl ? `${this.config.relayUrl.replace(/\/+$/, '')}/builds/${buildId}` : undefined;
    const verdicts = this.running.get(buildId) ? null : await this.runs.verdictsOfBuild(buildId);
    const state: DeviceTestState = !verdicts ? 'running' : verdicts.failed ? 'failed' : verdicts.passed ? 'passed' : 'none';
    return url ? { state, url } : { state };
  }

  @OnEvent(HubSessionStartedEvent.eventName)
  started(event: HubSessionStartedEvent): void {
    if (event.buildId === null) return;
    this.running.set(event.buildId, (this.running.get(event.buildId) ?? 0) + 1);
    this.changed(event.buildId);
  }

  @OnEvent(HubSessionEndedEvent.eventName)
  ended(event: HubSessionEndedEvent): void {
    if (event.buildId === null) return;
    const left = (this.running.get(event.buildId) ?? 1) - 1;
    if (left > 0) this.running.set(event.buildId, left);
    else this.running.delete(event.buildId);
    this.changed(event.buildId);
  }

  private changed(buildId: number): void {
    try {
      this.events.emit(DeviceTestsChangedEvent.eventName, new DeviceTestsChangedEvent(buildId));
    } catch (err) {
      this.logger.error(`A device-tests.changed listener failed: ${(err as Error).message}`);
    }
  }
}
