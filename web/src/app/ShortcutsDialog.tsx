import { Dialog } from 'radix-ui';
import { useEffect, useRef } from 'react';
import { Button } from '../ui/Button';
import ui from '../ui/ui.module.css';
import { isShortcutEvent, SHORTCUTS } from './keyboard';
import styles from './shortcuts.module.css';

/**
 * Calls `handlers[key]` for single-key shortcuts (never while typing or in a dialog).
 * The latest handlers are used without re-subscribing on every render.
 */
export function useShortcuts(handlers: Record<string, (event: KeyboardEvent) => void>, enabled = true) {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      if (!isShortcutEvent(event)) return;
      const handler = current.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler(event);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}

export function useGlobalShortcut(key: string, handler: () => void) {
  useShortcuts({ [key]: handler });
}

export function ShortcutsDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className={ui.overlay} />
        <Dialog.Content className={ui.dialog}>
          <Dialog.Title className={ui.dialogTitle}>Keyboard shortcuts</Dialog.Title>
          <Dialog.Description className={ui.dialogDescription}>
            Single keys work anywhere except while typing in a field.
          </Dialog.Description>
          <table className={styles.table}>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Action</th>
                <th scope="col">Where</th>
              </tr>
            </thead>
            <tbody>
              {SHORTCUTS.map((shortcut) => (
                <tr key={shortcut.keys.join()}>
                  <td>
                    {shortcut.keys.map((key) => (
                      <kbd key={key}>{key}</kbd>
                    ))}
                  </td>
                  <td>{shortcut.what}</td>
                  <td className={styles.where}>{shortcut.where}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className={ui.dialogActions}>
            <Dialog.Close asChild>
              <Button>Close</Button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
