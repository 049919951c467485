import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { fileSize } from '../ui/format';
import { Button } from '../ui/Button';
import { FormError } from '../ui/Field';
import { recordingFile, useCurrentRecording, useStartRecording, useStopRecording, type Recording, type RecordingInProgress } from '../recordings/queries';
import { clockText } from '../recordings/timeline';
import { BuildSelect, useBuildChoices } from './build-choices';
import styles from './devices.module.css';

/**
 * Record the device's live video (issue 29): Start, the elapsed time while it runs, Stop; then the
 * recording, linked to the build chosen here (`?build=` preselects it), with a link to the build
 * page where it plays beside its timeline. Only members who may control the device record (the
 * timeline names them; the relay refuses Viewers).
 */
export function RecordSession({
  sessionId,
  platform,
  initialBuildId,
  allowed,
}: {
  sessionId: string;
  platform: 'ios' | 'android' | null;
  initialBuildId: number | null;
  allowed: boolean;
}) {
  const builds = useBuildChoices(platform);
  // 0: let the relay choose (the build last installed on this session through it).
  const [buildId, setBuildId] = useState<number>(initialBuildId ?? 0);
  // Known to run: started here, or Record answered 409 (someone's recording runs already).
  const [tracking, setTracking] = useState(false);
  const current = useCurrentRecording(sessionId, tracking);
  const start = useStartRecording(sessionId);
  const stop = useStopRecording(sessionId);
  const running = current.data ?? null;
  const [saved, setSaved] = useState<{ recording: Recording; buildId: number | null; seconds: number } | null>(null);
  const now = useClock(running !== null);
  const reason = useId();
  // The last recording seen running: its build and start, for the result once it stops.
  const seen = useRef<RecordingInProgress | null>(null);

  const collect = () => {
    const was = seen.current;
    stop.mutate(undefined, {
      onSuccess: (result) =>
        setSaved({ recording: result, buildId: was?.buildId ?? null, seconds: was ? (Date.now() - Date.parse(was.startedAt)) / 1000 : 0 }),
    });
  };
  useEffect(() => {
    if (running) seen.current = running;
    // It ended by itself (maximum duration or size, the agent gone): fetch what was recorded.
    else if (seen.current && !stop.isPending && !stop.isSuccess && current.isSuccess) collect();
  }, [running, current.isSuccess]);

  const onStart = () => {
    setSaved(null);
    stop.reset();
    seen.current = null;
    start.mutate(buildId || null, {
      onSuccess: () => setTracking(true),
      onError: (err) => {
        if (err instanceof ApiError && err.status === 409) setTracking(true);
      },
    });
  };

  return (
    <section className={styles.install} aria-label="Record this session">
      <h2 className={styles.sectionTitle}>Recording</h2>
      {!running && builds.length > 0 && (
        <BuildSelect builds={builds} value={buildId} onChange={setBuildId} disabled={!allowed} emptyLabel="The build last installed here" />
      )}
      <div className={styles.recordRow}>
        {running ? (
          <>
            <Button variant="danger" onClick={collect} disabled={stop.isPending || !allowed}>
              {stop.isPending ? 'Saving…' : 'Stop recording'}
            </Button>
            <span className={styles.recordingNow} role="timer" aria-label="Recording time" aria-live="off">
              <span className={styles.recordDot} aria-hidden="true" /> {clockText((now - Date.parse(running.startedAt)) / 1000)}
            </span>
          </>
        ) : (
          <Button onClick={onStart} disabled={!allowed || start.isPending || current.isFetching} aria-describedby={allowed ? undefined : reason}>
            <span className={styles.recordDot} aria-hidden="true" /> {start.isPending ? 'Starting…' : 'Record'}
          </Button>
        )}
      </div>
      {running && (
        <p className={styles.muted}>
          Started by {running.startedBy}; stops by itself at {new Date(running.stopsAt).toLocaleTimeString()}.
        </p>
      )}
      {!allowed && (
        <p id={reason} className={styles.muted}>
          Viewers cannot record: recording comes with control of the device (QA, Developer or Admin).
        </p>
      )}
      {/* A 409 is shown as the running recording it found, not as an error. */}
      <FormError error={(running ? null : start.error) ?? stop.error ?? current.error} />
      {saved && (
        <p role="status" className={styles.installed}>
          Recording saved ({clockText(saved.seconds)}, {fileSize(saved.recording.fileSize)}).{' '}
          {saved.buildId ? (
            <Link to={`/builds/${saved.buildId}?recording=${encodeURIComponent(recordingFile(saved.recording.url))}#recordings`}>
              Play it on the build page
            </Link>
          ) : (
            <a href={saved.recording.url} download>
              Download it
            </a>
          )}
        </p>
      )}
    </section>
  );
}

/** Date.now(), again every second while `running`. */
function useClock(running: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}
