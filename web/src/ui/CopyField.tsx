import { useId, useRef, useState } from 'react';
import { Button } from './Button';
import styles from './ui.module.css';

/**
 * A value to copy (a link, a token, a snippet): shown read-only so it can also be selected by hand,
 * with a Copy button. The Clipboard API exists only in secure contexts (HTTPS or localhost); a relay
 * opened by its LAN address over plain HTTP falls back to selecting the text and `execCommand`.
 */
export function CopyField({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const id = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      if (navigator.clipboard) await navigator.clipboard.writeText(value);
      else {
        ref.current?.select();
        if (!document.execCommand('copy')) throw new Error('copy refused');
      }
      setState('copied');
    } catch {
      ref.current?.select();
      setState('failed');
    }
  };
  const props = { id, ref, readOnly: true, value, className: `${styles.input} ${styles.copyValue}`, onFocus: () => ref.current?.select() };
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      <div className={styles.copyRow}>
        {multiline ? <textarea {...props} rows={value.split('\n').length} wrap="off" spellCheck={false} /> : <input {...props} />}
        <Button size="small" onClick={copy} aria-label={`Copy ${label}`}>
          {state === 'copied' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <span className={styles.hint} role="status">
        {state === 'failed' ? 'Could not copy: the text is selected, press Ctrl+C (⌘C).' : state === 'copied' ? 'Copied to the clipboard.' : ''}
      </span>
    </div>
  );
}
