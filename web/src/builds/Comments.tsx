import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type FormEvent } from 'react';
import type { Schemas } from '../api/client';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormError, TextArea, cardClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { absoluteTime, relativeTime } from './format';
import { useAddComment, useComments, useDeleteComment } from './queries';
import { tileClass } from '../ui/Tile';
import styles from './build-page.module.css';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** The first image among pasted or dropped files (screenshots arrive as image/png). */
export function imageFrom(files: FileList | File[] | null | undefined): File | null {
  if (!files) return null;
  for (const file of Array.from(files)) if (IMAGE_TYPES.includes(file.type)) return file;
  return null;
}

type Comment = Schemas['CommentListItem'];

/**
 * Spec §5.7: the author or an Admin may delete a comment. Matched by member id, never by the shown
 * name (two members may share one); a deleted author's comment (author_id null) is the Admins'.
 */
export function mayDelete(comment: Pick<Comment, 'author_id'>, me: Pick<Schemas['MeResponse'], 'id' | 'role'>): boolean {
  return me.role === 'Admin' || (comment.author_id !== null && comment.author_id === me.id);
}

export function Comments({ buildId, me }: { buildId: number; me: Schemas['MeResponse'] }) {
  const comments = useComments(buildId);
  const remove = useDeleteComment(buildId);
  return (
    <section className={cardClass} aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      {comments.isPending ? (
        <Loading label="Loading comments…" />
      ) : comments.isError ? (
        <FormError error={comments.error} />
      ) : comments.data.length === 0 ? (
        <Empty>No comments yet.</Empty>
      ) : (
        <ol className={styles.comments}>
          {comments.data.map((comment) => (
            <li key={comment.id} className={styles.comment}>
              <div className={styles.commentHead}>
                {comment.authorAvatarUrl ? (
                  <img className={`${tileClass} ${styles.avatar}`} src={comment.authorAvatarUrl} alt="" />
                ) : (
                  <span className={`${tileClass} ${styles.avatar}`} aria-hidden="true">
                    {comment.author.slice(0, 1).toUpperCase()}
                  </span>
                )}
                <strong>{comment.author}</strong>
                <time dateTime={comment.created_at} title={absoluteTime(comment.created_at)} className={styles.muted}>
                  {relativeTime(comment.created_at)}
                </time>
                {mayDelete(comment, me) && (
                  <ConfirmDialog
                    trigger={
                      <Button size="small" className={styles.commentDelete} aria-label={`Delete comment by ${comment.author}`}>
                        Delete
                      </Button>
                    }
                    title="Delete this comment?"
                    description={<p>The comment and its attachment are removed for everyone.</p>}
                    confirmLabel="Delete comment"
                    onConfirm={() => remove.mutateAsync(comment.id)}
                  />
                )}
              </div>
              <p className={styles.commentBody}>{comment.body}</p>
              {comment.attachments.map((attachment) => (
                <a key={attachment.id} href={attachment.file_path} target="_blank" rel="noreferrer" className={styles.attachment}>
                  <img src={attachment.file_path} alt={`Attachment to the comment by ${comment.author}`} />
                </a>
              ))}
            </li>
          ))}
        </ol>
      )}
      <CommentForm buildId={buildId} />
    </section>
  );
}

function CommentForm({ buildId }: { buildId: number }) {
  const add = useAddComment(buildId);
  const [body, setBody] = useState('');
  const [attachment, setAttachment] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const preview = useMemo(() => (attachment ? URL.createObjectURL(attachment) : null), [attachment]);
  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview]);
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!body.trim()) return;
    add.mutate(
      { body: body.trim(), attachment },
      {
        onSuccess: () => {
          setBody('');
          setAttachment(null);
          if (picker.current) picker.current.value = '';
        },
      },
    );
  };
  const onPaste = (event: ClipboardEvent) => {
    const image = imageFrom(event.clipboardData?.files);
    if (image) {
      event.preventDefault();
      setAttachment(image);
    }
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const image = imageFrom(event.dataTransfer?.files);
    if (image) setAttachment(image);
  };
  return (
    <form
      onSubmit={submit}
      className={`${styles.commentForm} ${dragging ? styles.dragging : ''}`}
      onDragOver={(event) => {
        if (!event.dataTransfer?.types.includes('Files')) return;
        event.preventDefault();
        event.stopPropagation();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <TextArea
        id="comment"
        label="Add a comment"
        hint="Paste or drop a screenshot to attach it (PNG, JPEG or WebP, at most 5 MB). Ctrl+Enter sends."
        value={body}
        onChange={(e) => setBody(e.target.value)}
        onPaste={onPaste}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
          if (e.key === 'Escape') (e.target as HTMLTextAreaElement).blur();
        }}
        maxLength={10000}
      />
      {attachment && preview && (
        <div className={styles.preview}>
          <img src={preview} alt="Attachment preview" />
          <span>
            {attachment.name || 'pasted image'} <Button size="small" onClick={() => setAttachment(null)}>Remove attachment</Button>
          </span>
        </div>
      )}
      <FormError error={add.error} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={add.isPending || !body.trim()}>
          {add.isPending ? 'Sending…' : 'Comment'}
        </Button>
        <label className={styles.attach}>
          Attach image
          <input
            ref={picker}
            type="file"
            accept={IMAGE_TYPES.join(',')}
            className="visually-hidden"
            onChange={(e) => setAttachment(e.target.files?.[0] ?? null)}
          />
        </label>
      </div>
    </form>
  );
}
