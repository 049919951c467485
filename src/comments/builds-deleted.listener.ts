import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildsDeletedEvent } from '../builds/events/builds-deleted.event';
import { StoredImagesService } from '../images/stored-images.service';
import { CommentsService } from './comments.service';

/**
 * The database removed the comments of deleted builds (CASCADE) but cannot remove files: sweep
 * attachment files no row references any more. No grace period is needed, since the references
 * are read after the folder is listed and include uploads in flight. Never throws.
 */
@Injectable()
export class CommentsBuildsDeletedListener {
  private readonly logger = new Logger('Comments');

  constructor(
    private readonly comments: CommentsService,
    private readonly images: StoredImagesService,
  ) {}

  @OnEvent(BuildsDeletedEvent.eventName, { async: true })
  async onBuildsDeleted(): Promise<void> {
    try {
      await this.images.sweepOrphans('comments', () => this.comments.attachmentPaths(), 0);
    } catch (err) {
      this.logger.error(`Removing attachments of deleted builds failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
