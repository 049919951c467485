import { Injectable, Logger } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../../cluster/on-every-instance.decorator';
import { ForgesChangedEvent } from '../events/forges-changed.event';
import { ForgeDirectory } from '../forge-directory';
import { ForgeOutboxWorker } from '../outbox/outbox-worker';
import { ForgeStatusFeed } from '../status/status-feed';

/** On every instance: the dashboard's forges read again, and the feed and sender started if this is the first forge. */
@Injectable()
export class ForgesChangedListener {
  private readonly logger = new Logger('Forges');

  constructor(
    private readonly directory: ForgeDirectory,
    private readonly feed: ForgeStatusFeed,
    private readonly worker: ForgeOutboxWorker,
  ) {}

  @OnEventOnEveryInstance(ForgesChangedEvent.eventName)
  async onForgesChanged(): Promise<void> {
    try {
      await this.directory.reload();
      await this.feed.start();
      this.worker.start();
    } catch (err) {
      this.logger.error(`After a forge change: ${(err as Error)?.stack ?? err}`);
    }
  }
}
