import { AlertDialog } from 'radix-ui';
import { useState } from 'react';
import { Button } from '../../ui/Button';
import { TextArea } from '../../ui/Field';
import styles from '../../ui/ui.module.css';

/**
 * Rejecting asks why (issue 40 item 6): the reason becomes a comment on the build, which the commit
 * status and the pull-request comment show beside "Rejected by …". Optional unless the team asks for
 * it (`required`, Team settings; the relay refuses a rejection without it): Reject with it empty
 * rejects without a comment. Enter rejects, Shift+Enter is a new line, Escape cancels.
 */
export function RejectDialog({ title, required, onReject, onCancel }: { title: string; required: boolean; onReject: (reason: string) => void; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  const missing = required && !reason.trim();
  const reject = () => {
    if (!missing) onReject(reason.trim());
  };
  return (
    <AlertDialog.Root open onOpenChange={(open) => !open && onCancel()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={styles.overlay} />
        <AlertDialog.Content className={styles.dialog}>
          <AlertDialog.Title className={styles.dialogTitle}>Reject {title}</AlertDialog.Title>
          <AlertDialog.Description className={styles.dialogDescription}>
            What is wrong? The reason is posted as a comment, and the commit status and pull request show it.
          </AlertDialog.Description>
          <TextArea
            label={required ? 'Reason' : 'Reason (optional)'}
            hint={required ? 'This team asks for a reason when rejecting.' : undefined}
            required={required}
            autoFocus
            rows={3}
            value={reason}
            maxLength={5000}
            onChange={(e) => setReason(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                reject();
              }
            }}
          />
          <div className={styles.dialogActions}>
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <Button variant="danger" onClick={reject} disabled={missing}>
              Reject
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
