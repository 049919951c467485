import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { deleteById, insertReturningId } from '../database/query-builder/rows';
import { UserEntity } from '../users/user.entity';
import { CommentAttachmentEntity } from './comment-attachment.entity';
import { CommentEntity } from './comment.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

/** A comment as it is posted (its id comes on insert). */
export type NewComment = Pick<CommentEntity, 'buildId' | 'authorId' | 'authorDisplayName' | 'authorEmail' | 'body' | 'createdAt'>;
export type NewAttachment = Pick<CommentAttachmentEntity, 'filePath' | 'mime' | 'size'>;

/**
 * A build's comments, oldest first, each with its author's live account (when it still exists) and
 * its attachments; one row of nulls for a build without comments, none for no such build. One
 * prepared statement from the build's row, instead of a lookup of the build and two statements
 * (comments, attachments): on PostgreSQL each statement was a pool checkout and an event-loop turn
 * holding a connection (docs/decisions.md#issue-27-pg-reads); find(relations) cost more than the queries.
 */
export function commentsOfBuildStatement(sql: QueryBuilder) {
  return sql.prepare('comments.ofBuild', (v: { buildId: number }) =>
    sql.db
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
}

/** The comments and comment_attachments tables. */
@Injectable()
export class CommentsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** A build's comments with their authors and attachments (commentsOfBuildStatement), or null when there is no such build. */
  async ofBuild(buildId: number): Promise<CommentEntity[] | null> {
    const rows = await commentsOfBuildStatement(this.sql).run<CommentRow>(this.db, { buildId });
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
        comments.push(
          Object.assign(new CommentEntity(), {
            id,
            buildId,
            authorId,
            author,
            authorDisplayName: row.author_display_name,
            authorEmail: row.author_email,
            body: row.body,
            createdAt: new Date(Number(row.created_at)),
            attachments,
          }),
        );
      }
      if (row.attachment_id != null) attachments.push(toAttachment(id, { attachment_id: row.attachment_id, file_path: row.file_path, mime: row.mime, size: row.size }));
    }
    return comments;
  }

  /** Inserts the comment and its attachment (if any) in the caller's transaction; the comment with its id. */
  async insert(comment: NewComment, attachment: NewAttachment | null, tx: Sql): Promise<CommentEntity> {
    const id = await insertReturningId(tx, 'comments', {
      build_id: comment.buildId,
      author_id: comment.authorId,
      author_display_name: comment.authorDisplayName,
      author_email: comment.authorEmail,
      body: comment.body,
      created_at: comment.createdAt.getTime(),
    });
    if (attachment) {
      await insertReturningId(tx, 'comment_attachments', { comment_id: id, file_path: attachment.filePath, mime: attachment.mime, size: attachment.size });
    }
    return Object.assign(new CommentEntity(), { id, ...comment });
  }

  /** Whether the member commented on the build at or after `since` (epoch ms). */
  async commentedSince(buildId: number, authorId: number, since: number): Promise<boolean> {
    const statement = this.sql.prepare('comments.commentedSince', (v: { buildId: number; authorId: number; since: number; one: number }) =>
      this.sql.db
        .selectFrom('comments')
        .select('id')
        .where('build_id', '=', v.buildId)
        .where('author_id', '=', v.authorId)
        .where('created_at', '>=', v.since)
        .limit(v.one),
    );
    return (await statement.run(this.db, { buildId, authorId, since, one: 1 })).length > 0;
  }

  /** The comment with its attachments (no author account), or null. */
  async findWithAttachments(id: number): Promise<CommentEntity | null> {
    const statement = this.sql.prepare('comments.withAttachments', (v: { id: number }) =>
      this.sql.db
        .selectFrom('comments as c')
        .leftJoin('comment_attachments as a', 'a.comment_id', 'c.id')
        .select(['c.id', 'c.build_id', 'c.author_id', 'c.author_display_name', 'c.author_email', 'c.body', 'c.created_at'])
        .select(['a.id as attachment_id', 'a.file_path', 'a.mime', 'a.size'])
        .where('c.id', '=', v.id)
        .orderBy('a.id'),
    );
    const rows = await statement.run<CommentRow & { build_id: number | string }>(this.db, { id });
    const [row] = rows;
    if (!row) return null;
    return Object.assign(new CommentEntity(), {
      id,
      buildId: Number(row.build_id),
      authorId: row.author_id == null ? null : Number(row.author_id),
      authorDisplayName: row.author_display_name,
      authorEmail: row.author_email,
      body: row.body,
      createdAt: new Date(Number(row.created_at)),
      attachments: rows.filter((r) => r.attachment_id != null).map((r) => toAttachment(id, r)),
    });
  }

  /** Its attachments' rows go with it (ON DELETE CASCADE); whether there was one. */
  delete(id: number): Promise<boolean> {
    return deleteById(this.db, 'comments', id);
  }

  /** Every attachment's file path. */
  async attachmentPaths(): Promise<string[]> {
    const statement = this.sql.prepare('comments.attachmentPaths', () => this.sql.db.selectFrom('comment_attachments').select('file_path'));
    return (await statement.run<{ file_path: string }>(this.db, {})).map((row) => row.file_path);
  }
}

function toAttachment(commentId: number, row: Pick<CommentRow, 'attachment_id' | 'file_path' | 'mime' | 'size'>): CommentAttachmentEntity {
  return Object.assign(new CommentAttachmentEntity(), { id: Number(row.attachment_id), commentId, filePath: row.file_path, mime: row.mime, size: Number(row.size) });
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
