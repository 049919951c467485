import { useEffect, useRef } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { recordingFile, type Recording } from '../../recordings/queries';
import { RecordingPlayer } from '../../recordings/RecordingPlayer';
import { Button } from '../../ui/Button';
import { FormError, cardClass } from '../../ui/Field';
import { Empty, Loading } from '../../ui/States';
import { absoluteTime, fileSize, relativeTime } from '../../ui/format';
import { useRecordings } from '../queries';
import recordingStyles from '../../recordings/recordings.module.css';
import styles from '../build-page.module.css';

export const recordingTitle = (recording: Pick<Recording, 'createdAt'>) => `Recording from ${absoluteTime(recording.createdAt)}`;

/**
 * The build's recordings (kept 72 h): one plays beside its timeline, chosen in the URL
 * (`?recording=<file>`, so the device panel's "Play it on the build page" and a comment's
 * "Play with timeline" link straight to it), at a moment with `&at=<seconds>` (a failing test's
 * command, from the Device tests panel); the newest plays when none is chosen.
 */
export function RecordingsPanel({ buildId }: { buildId: number }) {
  const recordings = useRecordings(buildId);
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const section = useRef<HTMLElement>(null);
  const wanted = params.get('recording');
  const at = Number(params.get('at') ?? NaN);
  const items = recordings.data ?? [];
  const current = items.find((r) => recordingFile(r.url) === wanted) ?? items[0] ?? null;
  // Opened for one recording (#recordings): bring the player into view once it is there.
  const shown = current !== null;
  useEffect(() => {
    if (shown && location.hash === '#recordings') section.current?.scrollIntoView({ block: 'start' });
  }, [shown, location.hash, wanted]);
  const choose = (recording: Recording) =>
    setParams(
      (next) => {
        next.set('recording', recordingFile(recording.url));
        next.delete('at');
        return next;
      },
      { replace: true },
    );
  return (
    <section ref={section} id="recordings" className={cardClass} aria-labelledby="recordings-title">
      <h2 id="recordings-title">Recordings</h2>
      {recordings.isPending ? (
        <Loading label="Loading recordings…" />
      ) : recordings.isError ? (
        <FormError error={recordings.error} />
      ) : !current ? (
        <Empty>No recordings of this build yet. Record one from a device's panel; recordings are kept 72 hours.</Empty>
      ) : (
        <>
          <RecordingPlayer
            key={current.url}
            recording={current}
            title={recordingTitle(current)}
            startAtMs={recordingFile(current.url) === wanted && Number.isFinite(at) && at >= 0 ? Math.round(at * 1000) : null}
          />
          <p className={styles.note}>
            {absoluteTime(current.createdAt)} · {fileSize(current.fileSize)} · expires {relativeTime(current.expiresAt)} ·{' '}
            <a href={current.url} download>
              Download
            </a>
          </p>
          {items.length > 1 && (
            <ul className={recordingStyles.list} aria-label="Recordings of this build">
              {items.map((recording) => (
                <li key={recording.id}>
                  <Button
                    size="small"
                    className={recordingStyles.choice}
                    aria-pressed={recording === current}
                    onClick={() => choose(recording)}
                  >
                    {absoluteTime(recording.createdAt)} · {fileSize(recording.fileSize)}
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
