import type { ReactNode } from 'react';
import { Button } from './Button';
import { CopyField } from './CopyField';
import styles from './sections.module.css';

/** A newly created secret (PAT, SCIM token): shown once with a copy button, gone when dismissed or reloaded. */
export function TokenShownOnce({ area, label, value, onDone, children }: { area: string; label: string; value: string; onDone: () => void; children?: ReactNode }) {
  return (
    <div className={styles.section} aria-label={area}>
      <p role="status">
        <strong>Copy the token now: it is shown only once.</strong> The relay keeps only its hash.
      </p>
      <CopyField label={label} value={value} />
      {children}
      <div>
        <Button size="small" onClick={onDone}>
          Done, hide it
        </Button>
      </div>
    </div>
  );
}
