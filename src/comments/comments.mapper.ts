import { isoWithMillis } from '../common/time';
import { shownName, uploadUrl } from '../users/users.mapper';
import type { CommentEntity } from './comment.entity';

/** spec §2 "Comment", list shape. */
export interface CommentListItem {
  id: number;
  body: string;
  created_at: string;
  author: string;
  authorAvatarUrl: string | null;
  attachments: { id: number; file_path: string; mime: string }[];
}

/** spec §4 POST /comments response: `author` is the display name as stored, null when none. */
export interface CommentCreated {
  id: number;
  body: string;
  created_at: string;
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
