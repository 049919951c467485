import { AlertDialog } from 'radix-ui';
import { useState, type ReactNode } from 'react';
import { Button } from './Button';
import { FormError } from './Field';
import styles from './ui.module.css';

interface ConfirmDialogProps {
  /** The control that opens the dialog (rendered as the trigger). */
  trigger: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** Runs on confirm; a thrown error is shown in the dialog, which stays open. */
  onConfirm: () => Promise<unknown>;
}

/** The one confirmation dialog: names what will happen, keeps the API's error in view. */
export function ConfirmDialog({ trigger, title, description, confirmLabel, onConfirm }: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) setError(null);
      }}
    >
      <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={styles.overlay} />
        <AlertDialog.Content className={styles.dialog}>
          <AlertDialog.Title className={styles.dialogTitle}>{title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className={styles.dialogDescription}>{description}</div>
          </AlertDialog.Description>
          <FormError error={error} />
          <div className={styles.dialogActions}>
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <Button
              variant="danger"
              disabled={pending}
              onClick={async () => {
                setPending(true);
                setError(null);
                try {
                  await onConfirm();
                  setOpen(false);
                } catch (err) {
                  setError(err as Error);
                } finally {
                  setPending(false);
                }
              }}
            >
              {pending ? 'Working…' : confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
