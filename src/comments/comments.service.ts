import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BuildQueryService } from '../builds/build-query.service';
import { BuildsDeletedEvent } from '../builds/events/builds-deleted.event';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { badRequest, forbidden, notFound } from '../common/errors/relay-exception';
import { isPositiveId } from '../common/validation/parse-id.pipe';
import { TransactionRunner } from '../database/transaction-runner';
import { ImageForm, StoredImagesService } from '../uploads/stored-images.service';
import { CommentAttachmentEntity } from './comment-attachment.entity';
import { CommentEntity } from './comment.entity';
import { CommentCreated, CommentListItem, toCommentCreated, toCommentListItem } from './comments.mapper';

export const COMMENT_BODY_MAX = 10_000;

export const CommentMessages = {
  notFound: 'Comment not found',
  notAuthor: 'Only the author or an Admin can delete this comment',
  bodyRequired: 'body is required',
  buildIdRequired: 'build_id must be a positive integer',
} as const;

/** Comments on builds, with at most one image attachment each. */
@Injectable()
export class CommentsService {
  private readonly logger = new Logger('Comments');
  /** Attachment files already in uploads/comments/ whose row is not committed yet (kept from sweeps). */
  private readonly pendingFiles = new Set<string>();

  constructor(
    @InjectRepository(CommentEntity) private readonly comments: Repository<CommentEntity>,
    @InjectRepository(CommentAttachmentEntity) private readonly attachments: Repository<CommentAttachmentEntity>,
    private readonly builds: BuildQueryService,
    private readonly images: StoredImagesService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  async list(buildIdValue: unknown): Promise<CommentListItem[]> {
    const buildId = await this.existingBuild(buildIdValue);
    const rows = await this.comments.find({
      where: { buildId },
      relations: { author: true, attachments: true },
      order: { id: 'ASC' },
    });
    return rows.map(toCommentListItem);
  }

  /** POST /comments: fields `build_id`, `body`, optional file `attachment` (every role may post). */
  async create(principal: Principal, form: ImageForm): Promise<CommentCreated> {
    try {
      const body = form.fields.body?.trim();
      const buildId = await this.existingBuild(form.fields.build_id, () => {
        if (!body) throw badRequest(CommentMessages.bodyRequired);
        if (body.length > COMMENT_BODY_MAX) throw badRequest(`body must be at most ${COMMENT_BODY_MAX} characters`);
      });
      const attachment = form.image('attachment');
      const filePath = attachment ? await this.images.keep(attachment) : null;
      if (filePath) this.pendingFiles.add(filePath);
      try {
        return await this.transactions.run(async (manager) => {
          const comment = await manager.save(
            manager.create(CommentEntity, {
              buildId,
              authorId: principal.userId,
              authorDisplayName: principal.displayName,
              authorEmail: principal.email,
              body: body!,
              createdAt: this.clock.now(),
            }),
          );
          if (attachment && filePath) {
            await manager.insert(CommentAttachmentEntity, {
              commentId: comment.id,
              filePath,
              mime: attachment.mime,
              size: attachment.size,
            });
          }
          return toCommentCreated(comment);
        });
      } catch (err) {
        await this.images.remove(filePath);
        throw err;
      } finally {
        if (filePath) this.pendingFiles.delete(filePath);
      }
    } finally {
      await form.discard();
    }
  }

  /** Only the author or an Admin; the attachment files go with the comment. */
  async delete(principal: Principal, id: number): Promise<void> {
    const comment = await this.comments.findOne({ where: { id }, relations: { attachments: true } });
    if (!comment) throw notFound(CommentMessages.notFound);
    if (comment.authorId !== principal.userId && principal.role !== 'Admin') throw forbidden(CommentMessages.notAuthor);
    await this.comments.delete({ id });
    for (const attachment of comment.attachments ?? []) await this.images.remove(attachment.filePath);
  }

  /** Every attachment path in use (committed rows and uploads in flight), for the sweep of orphans. */
  async attachmentPaths(): Promise<Set<string>> {
    const rows = await this.attachments.find({ select: { filePath: true } });
    return new Set([...rows.map((a) => a.filePath), ...this.pendingFiles]);
  }

  /**
   * The database removed the comments of deleted builds (CASCADE) but cannot remove files: sweep
   * attachment files no row references any more. No grace period is needed, since the references
   * are read after the folder is listed and include uploads in flight.
   */
  @OnEvent(BuildsDeletedEvent.eventName, { async: true })
  async onBuildsDeleted(): Promise<void> {
    try {
      await this.images.sweepOrphans('comments', () => this.attachmentPaths(), 0);
    } catch (err) {
      this.logger.error(`Removing attachments of deleted builds failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }

  /** Validates `build_id` (400), runs the other field checks, then requires the build to exist (404). */
  private async existingBuild(value: unknown, checkFields?: () => void): Promise<number> {
    const text = typeof value === 'string' ? value.trim() : '';
    if (!isPositiveId(text)) throw badRequest(CommentMessages.buildIdRequired);
    checkFields?.();
    return (await this.builds.get(Number(text))).id;
  }
}
