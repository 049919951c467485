import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { BuildQueryService } from '../builds/build-query.service';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, forbidden, notFound } from '../common/errors/http-error';
import { MAX_ID, readId } from '../common/validation/parse-id.pipe';
import { TransactionRunner } from '../database/transaction-runner';
import { isForeignKeyViolation } from '../database/unique-violation';
import { ImageForm, StoredImagesService } from '../images/stored-images.service';
import { CommentMessages } from './comment-messages';
import { CommentsRepository } from './comments.repository';
import { CommentDeletedEvent } from './events/comment-deleted.event';
import { CommentPostedEvent } from './events/comment-posted.event';
import { CommentCreated, CommentListItem, toCommentCreated, toCommentListItem } from './comments.mapper';
import type { CreateCommentFields } from './dto/create-comment.dto';

/** Comments on builds, with at most one image attachment each. */
@Injectable()
export class CommentsService {
  /** Attachment files already in uploads/comments/ whose row is not committed yet (kept from sweeps). */
  private readonly pendingFiles = new Set<string>();

  constructor(
    private readonly comments: CommentsRepository,
    private readonly builds: BuildQueryService,
    private readonly images: StoredImagesService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly events: EventEmitter2,
  ) {}

  async list(buildIdValue: unknown): Promise<CommentListItem[]> {
    const buildId = readId(typeof buildIdValue === 'string' ? buildIdValue.trim() : '', 'build_id');
    if (buildId === null) throw notFound(ErrorMessages.buildNotFound);
    const comments = await this.comments.ofBuild(buildId);
    if (!comments) throw notFound(ErrorMessages.buildNotFound);
    return comments.map(toCommentListItem);
  }

  /** POST /comments: fields `build_id`, `body`, optional file `attachment` (every role may post). */
  async create(principal: Principal, form: ImageForm<CreateCommentFields>): Promise<CommentCreated> {
    try {
      const { body } = form.fields;
      // A well-formed id past MAX_ID names no build (readId's rule): 404 without asking the database.
      if (form.fields.build_id > MAX_ID) throw notFound(ErrorMessages.buildNotFound);
      // Not read first: the insert's foreign key answers for a build that is not there (below), and on
      // PostgreSQL that read was a pool checkout of its own, each a wait under load (issue 42).
      const buildId = form.fields.build_id;
      const attachment = form.image('attachment');
      // Announced before the file appears in the folder and until its row is committed, so that a
      // concurrent sweep (attachmentPaths) never takes it for an orphan.
      const filePath = attachment ? this.images.nameFor(attachment) : null;
      if (filePath) this.pendingFiles.add(filePath);
      try {
        if (attachment && filePath) await this.images.keep(attachment, filePath);
        // Every statement on `tx` (runExplicit: no AsyncLocalStorage while it runs).
        const created = await this.transactions.runExplicit(async (tx) => {
          const comment = await this.comments.insert(
            { buildId, authorId: principal.userId, authorDisplayName: principal.displayName, authorEmail: principal.email, body, createdAt: this.clock.now() },
            attachment && filePath ? { filePath, mime: attachment.mime, size: attachment.size } : null,
            tx,
          );
          return toCommentCreated(comment);
        });
        this.events.emit(CommentPostedEvent.eventName, new CommentPostedEvent(created.id, buildId));
        return created;
      } catch (err) {
        await this.images.remove(filePath);
        // No such build (or deleted meanwhile): its 404, and no file or row is left (a deleted build's
        // comments and files went with it anyway).
        if (isForeignKeyViolation(err)) await this.builds.get(buildId);
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
    const comment = await this.comments.findWithAttachments(id);
    if (!comment) throw notFound(CommentMessages.notFound);
    if (comment.authorId !== principal.userId && principal.role !== 'Admin') throw forbidden(CommentMessages.notAuthor);
    await this.comments.delete(id);
    this.events.emit(CommentDeletedEvent.eventName, new CommentDeletedEvent(id, comment.buildId));
    const details = { build_id: comment.buildId, author_id: comment.authorId, attachments: comment.attachments?.length ?? 0 };
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'comment.deleted', `comment:${id}`, details));
    for (const attachment of comment.attachments ?? []) await this.images.remove(attachment.filePath);
  }

  /** Every attachment path in use (committed rows and uploads in flight), for the sweep of orphans. */
  async attachmentPaths(): Promise<Set<string>> {
    // Pending names are read before the rows: one that leaves the set meanwhile had its row
    // committed first, so the query sees it. Read after, a row committed while the query ran
    // (PostgreSQL: after its snapshot) was in neither, and a sweep removed its file.
    const pending = [...this.pendingFiles];
    return new Set([...(await this.comments.attachmentPaths()), ...pending]);
  }
}
