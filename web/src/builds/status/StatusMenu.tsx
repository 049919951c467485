import { DropdownMenu } from 'radix-ui';
import type { BuildStatus } from '../../api/client';
import { menuClass, menuItemClass } from '../../ui/Menu';
import { STATUSES, StatusBadge } from '../../ui/StatusBadge';
import styles from '../builds.module.css';

/** Done and Rejected notify the webhooks (spec §3); the controls say so before anyone picks them. */
export function notifiesWebhooks(status: BuildStatus | null): boolean {
  return status === 'Done' || status === 'Rejected';
}

/**
 * The status badge as a menu button for members who may change it. `inRow`: in an inbox row, out of
 * the tab order (one tab stop per row, its link; the keys 1–4 set the status of the focused row).
 */
export function StatusMenu({
  status,
  onChange,
  label,
  inRow = false,
}: {
  status: BuildStatus | null;
  onChange: (status: BuildStatus | null) => void;
  label: string;
  inRow?: boolean;
}) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button
          type="button"
          className={styles.statusTrigger}
          tabIndex={inRow ? -1 : undefined}
          aria-label={`${label}: ${status ?? 'no status'}. Change status`}
        >
          <StatusBadge status={status} />
          <span aria-hidden="true" className={styles.caret}>▾</span>
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={menuClass} align="start" sideOffset={4}>
          <DropdownMenu.RadioGroup
            value={status ?? ''}
            onValueChange={(value) => onChange(value === '' ? null : (value as BuildStatus))}
          >
            {STATUSES.map((s, index) => (
              <DropdownMenu.RadioItem key={s} value={s} className={menuItemClass}>
                <kbd aria-hidden="true">{index + 1}</kbd> {s}
                {notifiesWebhooks(s) && <span className={styles.menuNote}>notifies webhooks</span>}
              </DropdownMenu.RadioItem>
            ))}
            <DropdownMenu.Separator className={styles.menuSeparator} />
            <DropdownMenu.RadioItem value="" className={menuItemClass}>
              No status
            </DropdownMenu.RadioItem>
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** Keys 1–4 of the triage shortcuts. */
export const STATUS_KEYS: Record<string, BuildStatus> = { '1': 'Backlog', '2': 'In Progress', '3': 'Done', '4': 'Rejected' };
