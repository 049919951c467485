import { useState } from 'react';
import type { Build, BuildStatus } from '../../api/client';
import { useReviewPolicy } from '../../team/review-policy-queries';
import { useToast } from '../../ui/Toast';
import { useAddCommentTo, type StatusNotices, type useUpdateBuild } from '../queries';
import { RejectDialog } from './RejectDialog';
import { noticesText } from './status-words';

interface ChangeOptions {
  /** An Undo: the notices of the change it undoes, which cannot be recalled. */
  undoOf?: StatusNotices;
  /** Runs once the change is made (after the reason for a rejection was given). */
  onSet?: () => void;
}

/**
 * Sets a build's status and says what happened, truthfully: every notice sent (webhooks, forge
 * statuses; none is said too), with Undo for a few seconds. Undo is the normal PATCH back to the
 * previous status; a notice already sent cannot be recalled, and the toast says so. Rejecting asks
 * for a reason first (required when the team says so), posted as an ordinary comment on the build
 * before the status: the relay checks for it then, and the commit status quotes it.
 * Render `dialog` where the page can show it.
 */
export function useStatusChange(update: ReturnType<typeof useUpdateBuild>, describe: (build: Build) => string) {
  const toast = useToast();
  const addComment = useAddCommentTo();
  const policy = useReviewPolicy();
  const [rejecting, setRejecting] = useState<{ build: Build; onSet?: () => void } | null>(null);

  const apply = (build: Build, status: BuildStatus | null, { undoOf, onSet }: ChangeOptions = {}) => {
    const previous = build.status_label;
    update.mutate(
      { id: build.id, status_label: status },
      {
        onSuccess: (notices) => {
          onSet?.();
          const sent = noticesText(status, notices.webhooksNotified, notices.forgeStatusesQueued);
          const text = `${describe(build)}: ${undoOf ? 'back to ' : ''}${status ?? 'No status'}${sent ? `, ${sent}` : ''}`;
          if (undoOf) {
            const earlier = noticesText(null, undoOf.webhooksNotified, undoOf.forgeStatusesQueued);
            return toast(`${text}.${earlier ? ` What was already sent (${earlier.replace(/ notified$/, '')}) cannot be recalled.` : ''}`);
          }
          toast(`${text}.`, 'info', {
            label: 'Undo',
            altText: `Set ${describe(build)} back to ${previous ?? 'No status'} with its status menu`,
            onAct: () => apply({ ...build, status_label: status }, previous, { undoOf: notices }),
          });
        },
        onError: (err) => toast(`Could not change the status: ${err.message}`, 'error'),
      },
    );
  };

  const change = (build: Build, status: BuildStatus | null, options: ChangeOptions = {}) => {
    if (build.status_label === status) return;
    if (status === 'Rejected' && !options.undoOf) return setRejecting({ build, onSet: options.onSet });
    apply(build, status, options);
  };

  const dialog = rejecting && (
    <RejectDialog
      title={describe(rejecting.build)}
      required={policy.data?.reject_reason_required ?? false}
      onCancel={() => setRejecting(null)}
      onReject={async (reason) => {
        const { build, onSet } = rejecting;
        setRejecting(null);
        // The reason is an ordinary comment (the spec's shapes stay as they are), posted first: the
        // relay, when the team asks for a reason, accepts Rejected only after the member's comment.
        if (reason) {
          try {
            await addComment.mutateAsync({ buildId: build.id, body: reason, attachment: null });
          } catch (err) {
            return toast(`Not rejected: the reason was not saved: ${(err as Error).message}`, 'error');
          }
        }
        apply(build, 'Rejected', { onSet });
      }}
    />
  );
  return { change, dialog };
}
