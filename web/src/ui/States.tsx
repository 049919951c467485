import type { ReactNode } from 'react';
import styles from './ui.module.css';

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className={styles.spinner} role="status" aria-label={label} />;
}

/** Full-area loading state; also what shows while the session is checked (no flash of sign-in). */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className={styles.center}>
      <div>
        <Spinner label={label} /> <span aria-hidden="true">{label}</span>
      </div>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className={styles.empty}>{children}</div>;
}

export function CenterMessage({ children }: { children: ReactNode }) {
  return <div className={styles.center}>{children}</div>;
}
