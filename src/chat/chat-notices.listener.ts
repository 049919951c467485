import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildStatusChangedEvent } from '../builds/events/build-status-changed.event';
import { BuildUploadedEvent } from '../builds/events/build-uploaded.event';
import { DeviceTestsChangedEvent } from '../device-tests/results/device-tests-changed.event';
import { HubDeviceTestResults } from '../device-tests/results/hub-device-test-results';
import { GateChangedEvent } from '../release-gate/events/gate-changed.event';
import type { NoticeCause } from './build-notice';
import { ChatNoticesService } from './chat-notices.service';

/** Builds landing, verdicts, gate changes and device-test results, turned into chat notices; never throws. */
@Injectable()
export class ChatNoticesListener {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly notices: ChatNoticesService,
    private readonly deviceTests: HubDeviceTestResults,
  ) {}

  @OnEvent(BuildUploadedEvent.eventName, { async: true })
  async uploaded(event: BuildUploadedEvent): Promise<void> {
    await this.safely(event.buildId, 'uploaded');
  }

  @OnEvent(BuildStatusChangedEvent.eventName, { async: true })
  async statusChanged(event: BuildStatusChangedEvent): Promise<void> {
    await this.safely(event.build.id, 'status');
  }

  @OnEvent(GateChangedEvent.eventName, { async: true })
  async gateChanged(event: GateChangedEvent): Promise<void> {
    // A checklist change in the same state updates Slack's message; Teams hears of new states only.
    await this.safely(event.buildId, 'gate', event.from !== event.to);
  }

  @OnEvent(DeviceTestsChangedEvent.eventName, { async: true })
  async deviceTestsChanged(event: DeviceTestsChangedEvent): Promise<void> {
    const { state } = await this.deviceTests.forBuild(event.buildId);
    await this.safely(event.buildId, 'device-tests', state === 'passed' || state === 'failed');
  }

  private async safely(buildId: number, cause: NoticeCause, teams = true): Promise<void> {
    try {
      await this.notices.buildChanged(buildId, cause, { teams });
    } catch (err) {
      this.logger.error(`Chat notice of build ${buildId} (${cause}): ${(err as Error)?.stack ?? err}`);
    }
  }
}
