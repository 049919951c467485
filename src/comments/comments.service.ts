import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { Repository } from 'typeorm';
import { BuildQueryService } from '../builds/build-query.service';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, forbidden, notFound } from '../common/errors/http-error';
import { MAX_ID, readId } from '../common/validation/parse-id.pipe';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { TransactionRunner } from '../database/transaction-runner';
import { isForeignKeyViolation } from '../database/unique-violation';
import { ImageForm, StoredImagesService } from '../images/stored-images.service';
import { CommentAttachmentEntity } from './comment-attachment.entity';
import { CommentMessages } from './comment-messages';
import { CommentEntity } from './comment.entity';
import { CommentDeletedEvent } from './events/comment-deleted.event';
import { CommentPostedEvent } from './events/comment-posted.event';
import { CommentCreated, CommentListItem, toCommentCreated, toCommentListItem } from './comments.mapper';
import type { CreateCommentFields } from './dto/create-comment.dto';
import { UserEntity } from '../users/user.entity';

/** Comments on builds, with at most one image attachment each. */
@Injectable()
export class CommentsService {
  /** Attachment files already in uploads/comments/ whose row is not committed yet (kept from sweeps). */
  private readonly pendingFiles = new Set<string>();

  constructor(
    @InjectRepository(CommentEntity) private readonly comments: Repository<CommentEntity>,
    @InjectRepository(CommentAttachmentEntity) private readonly attachments: Repository<CommentAttachmentEntity>,
    private readonly builds: BuildQueryService,
    private readonly images: StoredImagesService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly events: EventEmitter2,
  ) {
    this.sql = QueryBuilder.of(comments.manager.connection);
  }

  /** The hand-written reads' builder (compile-only Kysely, docs/database.md "One dialect"). */
  private readonly sql: QueryBuilder;

  async list(buildIdValue: unknown): Promise<CommentListItem[]> {
    const buildId = readId(typeof buildIdValue === 'string' ? buildIdValue.trim() : '', 'build_id');
    if (buildId === null) throw notFound(ErrorMessages.buildNotFound);
    const comments = await this.commentsOf(buildId);
    if (!comments) throw notFound(ErrorMessages.buildNotFound);
    return comments.map(toCommentListItem);
  }

  /** POST /comments: fields `build_id`, `body`, optional file `attachment` (every role may post). */
  async create(principal: Principal, form: ImageForm<CreateCommentFields>): Promise<CommentCreated> {
    try {
      const { body } = form.fields;
      // A well-formed id past MAX_ID names no build (readId's rule): 404 without asking the database.
      if (form.fields.build_id > MAX_ID) throw notFound(ErrorMessages.buildNotFound);
      const buildId = (await this.builds.get(form.fields.build_id)).id;
      const attachment = form.image('attachment');
      // Announced before the file appears in the folder and until its row is committed, so that a
      // concurrent sweep (attachmentPaths) never takes it for an orphan.
      const filePath = attachment ? this.images.nameFor(attachment) : null;
      if (filePath) this.pendingFiles.add(filePath);
      try {
        if (attachment && filePath) await this.images.keep(attachment, filePath);
        const created = await this.transactions.run(async (manager) => {
          const comment = await manager.save(
            manager.create(CommentEntity, {
              buildId,
              authorId: principal.userId,
              authorDisplayName: principal.displayName,
              authorEmail: principal.email,
              body,
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
        this.events.emit(CommentPostedEvent.eventName, new CommentPostedEvent(created.id, buildId));
        return created;
      } catch (err) {
        await this.images.remove(filePath);
        // The build was deleted between the check above and the insert: the same 404 as before the
        // check, and no file or row is left (its comments and files went with it anyway).
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
    const comment = await this.comments.findOne({ where: { id }, relations: { attachments: true } });
    if (!comment) throw notFound(CommentMessages.notFound);
    if (comment.authorId !== principal.userId && principal.role !== 'Admin') throw forbidden(CommentMessages.notAuthor);
    await this.comments.delete({ id });
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
    const rows = await this.attachments.find({ select: { filePath: true } });
    return new Set([...rows.map((a) => a.filePath), ...pending]);
  }

  /**
   * A build's comments, oldest first, each with its author's live account (when it still exists) and
   * its attachments, or null when there is no such build: one prepared statement from the build's
   * row, instead of a lookup of the build and two statements (comments, attachments). On PostgreSQL
   * each statement was a pool checkout and an event-loop turn holding a connection
   * (docs/decisions.md#issue-27-pg-reads); find(relations) cost more than the queries.
   */
  private async commentsOf(buildId: number): Promise<CommentEntity[] | null> {
    const statement = this.sql.prepare('comments.ofBuild', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('builds as b')
        .leftJoin('comments as c', 'c.build_id', 'b.id')
        .leftJoin('users as u', 'u.id', 'c.author_id')
        .leftJoin('comment_attachments as a', 'a.comment_id', 'c.id')
        .select(['c.id', 'c.author_id', 'c.author_display_name', 'c.author_email', 'c.body', 'c.created_at'])
        .select(['u.display_name as user_display_name', 'u.email as user_email', 'u.avatar_path as user_avatar_path'])
        .select(['a.id as attachment_id', 'a.file_path', 'a.mime', 'a.size'])
        .where('b.id', '=', v.buildId)
        .orderBy('c.id')
        .orderBy('a.id'),
    );
    const rows = await statement.run<CommentRow>(this.comments, { buildId });
    if (!rows.length) return null;
    const comments: CommentEntity[] = [];
    // The rows come comment by comment (one per attachment): the last comment's attachments are filled in place.
    let attachments: CommentAttachmentEntity[] = [];
    for (const row of rows) {
      // The build without comments: one row of nulls.
      if (row.id == null) continue;
      const id = Number(row.id);
      if (comments[comments.length - 1]?.id !== id) {
        const authorId = row.author_id == null ? null : Number(row.author_id);
        const author =
          authorId !== null && row.user_email != null
            ? Object.assign(new UserEntity(), { id: authorId, displayName: row.user_display_name, email: row.user_email, avatarPath: row.user_avatar_path })
            : null;
        attachments = [];
        const comment = Object.assign(new CommentEntity(), {
          id,
          buildId,
          authorId,
          author,
          authorDisplayName: row.author_display_name,
          authorEmail: row.author_email,
          body: row.body,
          createdAt: new Date(Number(row.created_at)),
          attachments,
        });
        comments.push(comment);
      }
      if (row.attachment_id != null) {
        attachments.push(
          Object.assign(new CommentAttachmentEntity(), { id: Number(row.attachment_id), commentId: id, filePath: row.file_path, mime: row.mime, size: Number(row.size) }),
        );
      }
    }
    return comments;
  }
}

/**
 * A comment row with its author's live account (null columns when the account is gone) and one of
 * its attachments (null columns when it has none), as the driver returns it; all null for a build
 * without comments.
 */
interface CommentRow {
  id: number | string | null;
  author_id: number | string | null;
  author_display_name: string | null;
  author_email: string;
  body: string;
  created_at: number | string;
  user_display_name: string | null;
  user_email: string | null;
  user_avatar_path: string | null;
  attachment_id: number | string | null;
  file_path: string;
  mime: string;
  size: number | string;
}
