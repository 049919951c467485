import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AgentResourcesService } from '../agents/resources/agent-resources.service';
import { SessionsService } from '../auth/sessions.service';
import { BuildRetentionService } from '../builds/build-retention.service';
import { HOUR_MS } from '../common/time';
import { RecordingsService } from '../recordings/recordings.service';

/**
 * Every scheduled clean-up in one place: each runs once at start-up and then on its schedule.
 * Tests call the methods directly after moving the clock. A failing purge is logged and retried
 * on the next tick; it never takes the relay down.
 */
@Injectable()
export class ScheduledPurgesService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Purge');

  constructor(
    private readonly sessions: SessionsService,
    private readonly builds: BuildRetentionService,
    private readonly agentResources: AgentResourcesService,
    private readonly recordings: RecordingsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Before the relay listens nothing is being uploaded, so every unreferenced build file is an orphan.
    await this.guarded('orphan build files', () => this.builds.sweepOrphans(0));
    await this.runAll();
  }

  @Cron(CronExpression.EVERY_MINUTE, { name: 'purge' })
  async runAll(): Promise<void> {
    await this.guarded('expired sessions', () => this.sessions.purgeExpired());
    await this.guarded('builds past their deletion time', () => this.builds.purgeDue());
    await this.guarded('orphan build files', () => this.builds.sweepOrphans(HOUR_MS));
    await this.guarded('agent resource samples older than 30 days', () => this.agentResources.purgeExpired());
    await this.guarded('recordings past 72 hours', () => this.recordings.purgeExpired());
  }

  private async guarded(what: string, purge: () => Promise<unknown>): Promise<void> {
    try {
      await purge();
    } catch (err) {
      this.logger.error(`Purging ${what} failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
