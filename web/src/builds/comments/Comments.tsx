import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type FormEvent } from 'react';
import { DropdownMenu } from 'radix-ui';
import { Link } from 'react-router';
import type { Schemas } from '../../api/client';
import { recordingFile } from '../../recordings/queries';
import { recordingParts, recordingPaths, recordingReference } from '../../recordings/recording-links';
import recordingStyles from '../../recordings/recordings.module.css';
import { menuClass, menuItemClass } from '../../ui/Menu';
import { Button } from '../../ui/Button';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { FormError, TextArea, cardClass } from '../../ui/Field';
import { Empty, Loading } from '../../ui/States';
import { absoluteTime, fileSize, relativeTime } from '../../ui/format';
import { useAddComment, useComments, useDeleteComment, useRecordings } from '../queries';
import { Avatar } from '../../ui/Avatar';
import { COMMENT_IMAGE, imageProblem } from '../../ui/file-checks';
import { linkParts } from './links';
import styles from '../build-page.module.css';

/** The first image among pasted or dropped files (screenshots arrive as image/png). */
export function imageFrom(files: FileList | File[] | null | undefined): File | null {
  if (!files) return null;
  for (const file of Array.from(files)) if (COMMENT_IMAGE.types.includes(file.type)) return file;
  return null;
}

/**
 * The comment's text with its http(s) addresses as links (opened in a new tab, without the opener
 * or a Referer), and the recordings it names (`/api/v1/recordings/<file>`) as links to the file.
 */
function CommentText({ body }: { body: string }) {
  return (
    <p className={styles.commentBody}>
      {linkParts(body).map((part, i) =>
        'url' in part ? (
          <a key={i} href={part.url} target="_blank" rel="noopener noreferrer">
            {part.url}
          </a>
        ) : (
          recordingParts(part.text, location.origin).map((piece, j) =>
            'path' in piece ? (
              <a key={`${i}-${j}`} href={piece.path}>
                {piece.shown}
              </a>
            ) : (
              piece.text
            ),
          )
        ),
      )}
    </p>
  );
}

/**
 * A recording named in a comment, played in place, with a link to the build page's player and
 * its timeline. An expired one (72 h) says so instead of a black box.
 */
function CommentRecording({ path, author }: { path: string; author: string }) {
  const [gone, setGone] = useState(false);
  return (
    <div className={recordingStyles.commentRecording}>
      {gone ? (
        <p className={styles.muted}>The attached recording is no longer available (recordings are kept 72 hours).</p>
      ) : (
        <video
          controls
          preload="metadata"
          src={path}
          className={recordingStyles.video}
          aria-label={`Recording attached to the comment by ${author}`}
          onError={() => setGone(true)}
        />
      )}
      {!gone && (
        <Link to={`?recording=${encodeURIComponent(recordingFile(path))}#recordings`}>Play with its timeline</Link>
      )}
    </div>
  );
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
                <Avatar name={comment.author} src={comment.authorAvatarUrl} className={styles.avatar} />
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
              <CommentText body={comment.body} />
              {recordingPaths(comment.body, location.origin).map((path) => (
                <CommentRecording key={path} path={path} author={comment.author} />
              ))}
              {/* Fits the column; the link opens the picture at full size in a new tab. */}
              {comment.attachments.map((attachment) => (
                <a
                  key={attachment.id}
                  href={attachment.file_path}
                  target="_blank"
                  rel="noopener noreferrer"
                  className={styles.attachment}
                  title="Open full size in a new tab"
                >
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
  const recordings = useRecordings(buildId);
  // The comment names the recording by its url (the spec's Comment has no field for it).
  const attachRecording = (url: string) =>
    setBody((text) => (text.includes(url) ? text : `${text.trimEnd()}${text.trim() ? '\n' : ''}${recordingReference(url)}`));
  const [attachment, setAttachmentFile] = useState<File | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  // A picture the relay would refuse (type, size) is refused here, before the comment is sent.
  const setAttachment = (file: File | null) => {
    const problem = file && imageProblem(file, COMMENT_IMAGE);
    setRefused(problem || null);
    setAttachmentFile(problem ? null : file);
    if (problem && picker.current) picker.current.value = '';
  };
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
    const dropped = event.dataTransfer?.files;
    // A dropped file that is no image the relay takes is refused with the reason, not ignored.
    const image = imageFrom(dropped) ?? dropped?.[0] ?? null;
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
      {refused && <FormError error={{ message: refused }} />}
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
            accept={COMMENT_IMAGE.types.join(',')}
            className="visually-hidden"
            onChange={(e) => setAttachment(e.target.files?.[0] ?? null)}
          />
        </label>
        {(recordings.data?.length ?? 0) > 0 && (
          <DropdownMenu.Root>
            <DropdownMenu.Trigger asChild>
              <Button size="small">Attach recording ▾</Button>
            </DropdownMenu.Trigger>
            <DropdownMenu.Portal>
              <DropdownMenu.Content className={menuClass} align="start" sideOffset={4}>
                {recordings.data!.map((recording) => (
                  <DropdownMenu.Item key={recording.id} className={menuItemClass} onSelect={() => attachRecording(recording.url)}>
                    Recording from {absoluteTime(recording.createdAt)} · {fileSize(recording.fileSize)}
                  </DropdownMenu.Item>
                ))}
              </DropdownMenu.Content>
            </DropdownMenu.Portal>
          </DropdownMenu.Root>
        )}
      </div>
    </form>
  );
}
