import { useEffect, useMemo, useRef, useState } from 'react';
import { UiTree } from '../devices/UiTree';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import { useTimeline, type Recording } from './queries';
import { clockText, describeEvent, eventAt, indexAt, snapshotElements } from './timeline';
import styles from './recordings.module.css';

const byTime = <T extends { at: number }>(items: T[]) => [...items].sort((a, b) => a.at - b.at);

/**
 * A recording in a <video>, its timeline beside it (issue 29): what was done, when and by whom;
 * a click on an event seeks there, the event at the current time is marked while it plays, and
 * the UI tree the relay took at (or just before) that time can be opened. `startAtMs` opens it at
 * a moment (a failing test's command, from the build's runs), once its metadata is loaded.
 */
export function RecordingPlayer({ recording, title, startAtMs = null }: { recording: Recording; title: string; startAtMs?: number | null }) {
  const video = useRef<HTMLVideoElement>(null);
  const timeline = useTimeline(recording);
  const [ms, setMs] = useState(0);
  const events = useMemo(() => byTime(timeline.data?.events ?? []), [timeline.data]);
  const snapshots = useMemo(() => byTime(timeline.data?.snapshots ?? []), [timeline.data]);
  const current = eventAt(events, ms);
  const snapshot = snapshots[Math.max(0, indexAt(snapshots, ms))] ?? null;
  const elements = useMemo(() => snapshotElements(snapshot?.tree), [snapshot]);
  const [selected, setSelected] = useState<number | null>(null);
  const seek = (at: number) => {
    const element = video.current;
    if (!element) return;
    element.currentTime = at / 1000;
    setMs(at);
  };
  const track = () => setMs((video.current?.currentTime ?? 0) * 1000);
  // Seeking before the metadata is there is lost: wait for it when it is not loaded yet.
  useEffect(() => {
    const element = video.current;
    if (!element || startAtMs === null) return;
    const start = () => {
      element.currentTime = startAtMs / 1000;
      setMs(startAtMs);
    };
    if (element.readyState >= HTMLMediaElement.HAVE_METADATA) start();
    else element.addEventListener('loadedmetadata', start, { once: true });
    return () => element.removeEventListener('loadedmetadata', start);
  }, [startAtMs]);
  // The marked event stays in sight as it plays: the list scrolls, never the page.
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const box = list.current;
    const item = box?.children[current] as HTMLElement | undefined;
    if (!box || !item) return;
    if (item.offsetTop < box.scrollTop) box.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = item.offsetTop + item.offsetHeight - box.clientHeight;
  }, [current]);
  return (
    <div className={styles.player}>
      <video
        ref={video}
        controls
        preload="metadata"
        src={recording.url}
        className={styles.video}
        aria-label={title}
        onTimeUpdate={track}
        onSeeked={track}
      >
        <a href={recording.url}>Download the recording</a>
      </video>
      <section className={styles.timeline} aria-label="Timeline">
        <h3 className={styles.timelineTitle}>Timeline</h3>
        {recording.sessionId !== null && timeline.isPending ? (
          <Loading label="Loading the timeline…" />
        ) : timeline.isError ? (
          <FormError error={timeline.error} />
        ) : !timeline.data ? (
          <p className={styles.muted}>No timeline: this recording was uploaded, not recorded by the relay.</p>
        ) : events.length === 0 ? (
          <p className={styles.muted}>Nothing was done on the device while it was recorded.</p>
        ) : (
          <ol ref={list} className={styles.events}>
            {events.map((event, i) => (
              <li key={i}>
                <button
                  type="button"
                  className={styles.event}
                  aria-current={i === current ? 'true' : undefined}
                  onClick={() => seek(event.at)}
                >
                  <time className={styles.eventTime}>{clockText(event.at / 1000)}</time>
                  <span className={styles.eventWhat}>{describeEvent(event)}</span>
                  {event.by && <span className={styles.muted}>{event.by}</span>}
                </button>
              </li>
            ))}
          </ol>
        )}
        {snapshot && (
          <details className={styles.snapshot}>
            <summary>UI tree at {clockText(snapshot.at / 1000)}</summary>
            {elements.length ? (
              <UiTree elements={elements} selected={selected} onSelect={setSelected} />
            ) : (
              <p className={styles.muted}>The device listed no elements then.</p>
            )}
          </details>
        )}
      </section>
    </div>
  );
}
