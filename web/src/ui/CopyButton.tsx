import { useState } from 'react';
import { Button } from './Button';

/**
 * Copies a value to the clipboard and says so for a moment. `label` names what is copied, so
 * several copy buttons on one page stay distinguishable to screen readers and tests.
 */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // No clipboard access (plain http on a LAN address): the value stays selectable on screen.
      setCopied('failed');
    }
    setTimeout(() => setCopied(null), 2000);
  };
  return (
    <Button size="small" onClick={copy} aria-label={label}>
      {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Select and copy' : 'Copy'}
    </Button>
  );
}
