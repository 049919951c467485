import type { Build, BuildStatus } from '../api/client';
import { useToast } from '../ui/Toast';
import type { useUpdateBuild } from './queries';
import { notifiesWebhooks } from './StatusMenu';

/** What the webhooks were told, as the relay counted it (X-Webhooks-Notified). */
export function webhooksNotifiedText(status: BuildStatus | null, notified: number): string {
  if (!notifiesWebhooks(status)) return '';
  if (notified === 0) return ', no webhook to notify';
  return `, ${notified} webhook${notified === 1 ? '' : 's'} notified`;
}

/**
 * Sets a build's status and says what happened, truthfully: how many webhooks were notified (none
 * is said too), with Undo for a few seconds. Undo is the normal PATCH back to the previous status;
 * a notification already sent cannot be recalled, and the toast says so.
 */
export function useStatusChange(update: ReturnType<typeof useUpdateBuild>, describe: (build: Build) => string) {
  const toast = useToast();
  const change = (build: Build, status: BuildStatus | null, undoOf?: { notified: number }) => {
    if (build.status_label === status) return;
    const previous = build.status_label;
    update.mutate(
      { id: build.id, status_label: status },
      {
        onSuccess: ({ webhooksNotified }) => {
          const text = `${describe(build)}: ${undoOf ? 'back to ' : ''}${status ?? 'no status'}${webhooksNotifiedText(status, webhooksNotified)}`;
          if (undoOf) {
            const sent = undoOf.notified > 0 ? ` The notification already sent to ${undoOf.notified === 1 ? '1 webhook' : `${undoOf.notified} webhooks`} cannot be recalled.` : '';
            return toast(`${text}.${sent}`);
          }
          toast(`${text}.`, 'info', {
            label: 'Undo',
            altText: `Set ${describe(build)} back to ${previous ?? 'no status'} with its status menu`,
            onAct: () => change({ ...build, status_label: status }, previous, { notified: webhooksNotified }),
          });
        },
        onError: (err) => toast(`Could not change the status: ${err.message}`, 'error'),
      },
    );
  };
  return change;
}
