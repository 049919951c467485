import type { BuildStatus } from '../api/client';
import styles from './ui.module.css';

export const STATUSES: BuildStatus[] = ['Backlog', 'In Progress', 'Done', 'Rejected'];

export function StatusBadge({ status }: { status: BuildStatus | null }) {
  if (!status) return <span className={`${styles.badge} ${styles['status-none']}`}>No status</span>;
  return <span className={`${styles.badge} ${styles[`status-${status.replace(' ', '')}`]}`}>{status}</span>;
}
