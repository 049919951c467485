import { ApiProperty, PickType } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import { shownName, uploadUrl } from '../users/users.mapper';
import type { CommentEntity } from './comment.entity';

/** An image attached to a comment (spec §2 "Comment", list only). */
export class CommentAttachment {
  @ApiProperty()
  id: number;
  @ApiProperty({ example: '/uploads/comments/3f2a….png', description: 'under /uploads/comments/' })
  file_path: string;
  @ApiProperty({ example: 'image/png' })
  mime: string;
}

/** spec §2 "Comment", list shape. */
export class CommentListItem {
  @ApiProperty()
  id: number;
  @ApiProperty()
  body: string;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ description: 'display name, or the part of the e-mail before @ when none' })
  author: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'beyond the spec: the author\'s member id (who may delete it: the author or an Admin); null once their account was deleted',
  })
  author_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'null when no profile image' })
  authorAvatarUrl: string | null;
  @ApiProperty({ type: [CommentAttachment] })
  attachments: CommentAttachment[];
}

/** spec §4 POST /comments response: `author` is the display name as stored, null when none. */
export class CommentCreated extends PickType(CommentListItem, ['id', 'body', 'created_at'] as const) {
  @ApiProperty({ type: String, nullable: true, description: 'display name as stored; null when none' })
  author: string | null;
}

export function toCommentListItem(comment: CommentEntity): CommentListItem {
  // The live account when it still exists (a renamed author shows the new name), else what was kept.
  const author = comment.author ?? { displayName: comment.authorDisplayName, email: comment.authorEmail };
  return {
    id: comment.id,
    body: comment.body,
    created_at: isoWithMillis(comment.createdAt),
    author: shownName(author),
    author_id: comment.authorId,
    authorAvatarUrl: uploadUrl(comment.author?.avatarPath ?? null),
    attachments: (comment.attachments ?? [])
      .sort((a, b) => a.id - b.id)
      .map((a) => ({ id: a.id, file_path: uploadUrl(a.filePath)!, mime: a.mime })),
  };
}

export function toCommentCreated(comment: CommentEntity): CommentCreated {
  return {
    id: comment.id,
    body: comment.body,
    created_at: isoWithMillis(comment.createdAt),
    author: comment.authorDisplayName,
  };
}
