import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
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
    const buildId = await this.existingBuild(buildIdValue);
    return (await this.commentsOf(buildId)).map(toCommentListItem);
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
   * its attachments: two prepared statements instead of find(relations), whose query builder
   * and entity hydration cost more than the queries on this read.
   */
  private async commentsOf(buildId: number): Promise<CommentEntity[]> {
    const db = this.sql.db;
    const comments = this.sql.prepare('comments.ofBuild', (v: { buildId: number }) =>
      db
        .selectFrom('comments as c')
        .leftJoin('users as u', 'u.id', 'c.author_id')
        .select(['c.id', 'c.author_id', 'c.author_display_name', 'c.author_email', 'c.body', 'c.created_at'])
        .select(['u.display_name as user_display_name', 'u.email as user_email', 'u.avatar_path as user_avatar_path'])
        .where('c.build_id', '=', v.buildId)
        .orderBy('c.id'),
    );
    const attachmentsOf = this.sql.prepare('comments.attachmentsOfBuild', (v: { buildId: number }) =>
      db
        .selectFrom('comment_attachments as a')
        .innerJoin('comments as c', 'c.id', 'a.comment_id')
        .select(['a.id', 'a.comment_id', 'a.file_path', 'a.mime', 'a.size'])
        .where('c.build_id', '=', v.buildId)
        .orderBy('a.id'),
    );
    const [rows, attachmentRows] = await Promise.all([
      comments.run<CommentRow>(this.comments, { buildId }),
      attachmentsOf.run<AttachmentRow>(this.comments, { buildId }),
    ]);
    const attachments = new Map<number, CommentAttachmentEntity[]>();
    for (const row of attachmentRows) {
      const commentId = Number(row.comment_id);
      const list = attachments.get(commentId) ?? [];
      list.push(Object.assign(new CommentAttachmentEntity(), { id: Number(row.id), commentId, filePath: row.file_path, mime: row.mime, size: Number(row.size) }));
      attachments.set(commentId, list);
    }
    return rows.map((row) => {
      const id = Number(row.id);
      const authorId = row.author_id == null ? null : Number(row.author_id);
      const author =
        authorId !== null && row.user_email != null
          ? Object.assign(new UserEntity(), { id: authorId, displayName: row.user_display_name, email: row.user_email, avatarPath: row.user_avatar_path })
          : null;
      return Object.assign(new CommentEntity(), {
        id,
        buildId,
        authorId,
        author,
        authorDisplayName: row.author_display_name,
        authorEmail: row.author_email,
        body: row.body,
        createdAt: new Date(Number(row.created_at)),
        attachments: attachments.get(id) ?? [],
      });
    });
  }

  /** Validates `build_id` by readId's rule (400), then requires the build to exist (404). */
  private async existingBuild(value: unknown): Promise<number> {
    const buildId = readId(typeof value === 'string' ? value.trim() : '', 'build_id');
    if (buildId === null) throw notFound(ErrorMessages.buildNotFound);
    return (await this.builds.get(buildId)).id;
  }
}

/** A comment row with its author's live account (null columns when the account is gone), as the driver returns it. */
interface CommentRow {
  id: number | string;
  author_id: number | string | null;
  author_display_name: string | null;
  author_email: string;
  body: string;
  created_at: number | string;
  user_display_name: string | null;
  user_email: string | null;
  user_avatar_path: string | null;
}

interface AttachmentRow {
  id: number | string;
  comment_id: number | string;
  file_path: string;
  mime: string;
  size: number | string;
}
