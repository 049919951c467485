import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, call, type Build, type BuildStatus } from '../../api/client';
import { useReviewPolicy } from '../../team/review-policy-queries';
import { Button } from '../../ui/Button';
import { STATUSES } from '../../ui/StatusBadge';
import { useToast } from '../../ui/Toast';
import { bulkSummary, rangeBetween, runLimited } from './bulk';
import { versionText } from '../format';
import { buildKeys } from '../queries';
import styles from '../builds.module.css';

/**
 * The inbox's multi-selection: ids checked on the current page. It is UI state of this page only
 * (not in the URL) and is emptied when the filters, sort or page change; only rows still on the
 * page are acted on.
 */
export function useRowSelection(items: Build[], pageKey: string) {
  const [checked, setChecked] = useState<Set<number>>(() => new Set());
  const anchor = useRef<number | null>(null);
  useEffect(() => {
    setChecked(new Set());
    anchor.current = null;
  }, [pageKey]);
  const ids = items.map((b) => b.id);

  /** A click (or `x`) toggles one row; with shift, every row from the last one toggled is checked. */
  const toggle = (id: number, range = false) => {
    // Read now: the updater may run after the anchor below has moved to this row.
    const from = range ? anchor.current : null;
    setChecked((current) => {
      const next = new Set(current);
      if (from !== null) for (const each of rangeBetween(ids, from, id)) next.add(each);
      else if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
    anchor.current = id;
  };
  const selected = items.filter((b) => checked.has(b.id));
  const allChecked = items.length > 0 && selected.length === items.length;
  return {
    isChecked: (id: number) => checked.has(id),
    toggle,
    selected,
    allChecked,
    toggleAll: () => setChecked(allChecked ? new Set() : new Set(ids)),
    clear: () => setChecked(new Set()),
    /** Keeps only these ids checked (the ones a bulk action failed on, to try again). */
    keep: (keep: number[]) => setChecked(new Set(keep)),
  };
}

export type RowSelection = ReturnType<typeof useRowSelection>;

const buildName = (b: Build) => `${b.name} ${versionText(b.version_name, b.build_number)}`;

/**
 * Acting on every checked build: one PATCH (or schedule-deletion POST) per build, a few at a time,
 * so each keeps its own permission check, history entry and webhook; then one summary.
 */
export function useBulkActions(selection: RowSelection) {
  const client = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const reasonRequired = useReviewPolicy().data?.reject_reason_required ?? false;
  const act = async (done: string, work: (b: Build) => Promise<unknown>) => {
    if (busy || !selection.selected.length) return;
    setBusy(true);
    const outcomes = await runLimited(selection.selected, work);
    setBusy(false);
    void client.invalidateQueries({ queryKey: buildKeys.all });
    const failed = outcomes.flatMap((o) => (o.ok ? [] : [o.item.id]));
    selection.keep(failed);
    toast(bulkSummary(outcomes, done, buildName), failed.length ? 'error' : undefined);
  };
  return {
    busy,
    /** Rejecting many at once has no reason to give: a team that asks for one rejects a build at a time. */
    rejectRefused: reasonRequired,
    setStatus: (status: BuildStatus | null) =>
      status === 'Rejected' && reasonRequired
        ? void toast('This team asks for a reason when rejecting: reject the builds one at a time.', 'error')
        : act(`set to ${status ?? 'no status'}`, (b) =>
            call(api.PATCH('/api/v1/builds/{id}', { params: { path: { id: b.id } }, body: { status_label: status } })),
          ),
    scheduleDeletion: () =>
      act('scheduled for deletion', (b) => call(api.POST('/api/v1/builds/{id}/schedule-deletion', { params: { path: { id: b.id } } }))),
  };
}

/** What the checked builds can have done to them, shown while any row is checked. */
export function SelectionBar({ selection, actions }: { selection: RowSelection; actions: ReturnType<typeof useBulkActions> }) {
  const count = selection.selected.length;
  if (!count) return null;
  return (
    <div className={styles.selectionBar} role="toolbar" aria-label="Selected builds">
      <span aria-live="polite">
        {count} selected
      </span>
      {STATUSES.map((status, index) => (
        <Button key={status} size="small" disabled={actions.busy || (status === 'Rejected' && actions.rejectRefused)} title={status === 'Rejected' && actions.rejectRefused ? 'This team asks for a reason when rejecting: reject the builds one at a time' : undefined} onClick={() => void actions.setStatus(status)} aria-keyshortcuts={String(index + 1)}>
          Set {status}
        </Button>
      ))}
      <Button size="small" disabled={actions.busy} onClick={() => void actions.setStatus(null)}>
        Clear status
      </Button>
      <Button size="small" disabled={actions.busy} onClick={() => void actions.scheduleDeletion()}>
        Schedule deletion
      </Button>
      <Button size="small" onClick={selection.clear}>
        Unselect all
      </Button>
    </div>
  );
}
