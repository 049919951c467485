import { Dialog } from 'radix-ui';
import { Link } from 'react-router';
import { recordingFile } from '../recordings/queries';
import { Button } from '../ui/Button';
import ui from '../ui/ui.module.css';
import styles from './device-tests.module.css';

export interface FailureEvidenceProps {
  /** What failed, for the image's name: the test's or the session's. */
  what: string;
  screenshotUrl: string | null;
  recordingUrl: string | null;
  /** The failing command's place on the recording (ms from its first frame). */
  failedAtMs: number | null;
}

/** Where a recording opens on the build page, at a moment (the Recordings panel reads `at`, in seconds). */
export function recordingMomentPath(recordingUrl: string, atMs: number | null): string {
  const params = new URLSearchParams({ recording: recordingFile(recordingUrl) });
  if (atMs !== null) params.set('at', String(atMs / 1000));
  return `?${params.toString()}#recordings`;
}

/**
 * A failure's evidence beside it: its session's final screenshot (a thumbnail, enlarged on click)
 * and its recording opened at the failing command. Nothing when the session kept neither.
 */
export function FailureEvidence({ what, screenshotUrl, recordingUrl, failedAtMs }: FailureEvidenceProps) {
  if (!screenshotUrl && !recordingUrl) return null;
  const alt = `Final screenshot of ${what}`;
  return (
    <div className={styles.evidence}>
      {screenshotUrl && (
        <Dialog.Root>
          <Dialog.Trigger asChild>
            <button type="button" className={styles.thumbnailButton} aria-label={`Enlarge the final screenshot of ${what}`}>
              <img src={screenshotUrl} alt={alt} className={styles.thumbnail} loading="lazy" />
            </button>
          </Dialog.Trigger>
          <Dialog.Portal>
            <Dialog.Overlay className={ui.overlay} />
            <Dialog.Content className={`${ui.dialog} ${styles.enlarged}`}>
              <Dialog.Title className={ui.dialogTitle}>Final screenshot</Dialog.Title>
              <Dialog.Description className={ui.dialogDescription}>{what}</Dialog.Description>
              <img src={screenshotUrl} alt={alt} className={styles.large} />
              <div className={ui.dialogActions}>
                <a href={screenshotUrl} target="_blank" rel="noreferrer">
                  Open the image
                </a>
                <Dialog.Close asChild>
                  <Button>Close</Button>
                </Dialog.Close>
              </div>
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      )}
      {recordingUrl && (
        <Link to={recordingMomentPath(recordingUrl, failedAtMs)}>
          {failedAtMs === null ? 'Play the recording' : `Play from the failing step (${(failedAtMs / 1000).toFixed(1)} s)`}
        </Link>
      )}
    </div>
  );
}
