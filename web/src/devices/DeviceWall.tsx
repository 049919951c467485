import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useDevices, type Device } from '../agents/queries';
import { FormError } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { DeviceScreen } from './DeviceScreen';
import { useLiveScreen } from './live-screen';
import { canDecodeVideo, useLiveVideo } from './live-video';
import { holderText } from './hub-sessions';
import styles from './devices.module.css';

/**
 * At most this many tiles play live video at once (the first ones in view); the others refresh
 * screenshots. Each live tile is one more viewer of its device (docs/dashboard.md "Device wall").
 */
export const MAX_LIVE_TILES = 4;
/** A tile draws at most this many pictures a second, at most this wide (docs/dashboard.md). */
const TILE_FPS = 5;
const TILE_WIDTH = 360;

/**
 * Several booted devices side by side (`?agent=` narrows it): live video at a lower rate in the
 * first MAX_LIVE_TILES tiles in view, screenshots in the others, nothing for tiles out of view.
 */
export function DeviceWall() {
  const devices = useDevices();
  const [params] = useSearchParams();
  const agent = params.get('agent');
  const booted = (devices.data?.items ?? []).filter((d) => d.state === 'booted' && d.agent_online && (!agent || d.agent === agent));
  const [inView, setInView] = useState<ReadonlySet<string>>(new Set());
  const [noVideo, setNoVideo] = useState<ReadonlySet<string>>(new Set());
  const live = new Set(
    booted
      .map((d) => d.session_id)
      .filter((id) => inView.has(id) && !noVideo.has(id))
      .slice(0, MAX_LIVE_TILES),
  );
  const onView = useCallback((sessionId: string, visible: boolean) => setInView((set) => toggled(set, sessionId, visible)), []);
  const onNoVideo = useCallback((sessionId: string) => setNoVideo((set) => toggled(set, sessionId, true)), []);
  return (
    <section className={styles.page} aria-labelledby="wall-title">
      <p>
        <Link to="/devices">← Devices</Link>
      </p>
      <h1 id="wall-title">Device wall</h1>
      <p className={styles.muted}>
        {canDecodeVideo()
          ? `Up to ${MAX_LIVE_TILES} devices in view play live video at ${TILE_FPS} pictures a second; the others refresh a screenshot each second. Open a device for full rate and control.`
          : 'Screenshots, refreshed each second: this browser cannot decode live video here (WebCodecs needs HTTPS or localhost).'}
      </p>
      {devices.isPending ? (
        <Loading label="Loading devices…" />
      ) : devices.isError ? (
        <FormError error={devices.error} />
      ) : booted.length === 0 ? (
        <Empty>No booted device of an online agent.</Empty>
      ) : (
        <ul className={styles.wall}>
          {booted.map((device) => (
            <WallTile
              key={device.session_id}
              device={device}
              visible={inView.has(device.session_id)}
              live={live.has(device.session_id)}
              onView={onView}
              onNoVideo={onNoVideo}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function toggled(set: ReadonlySet<string>, id: string, present: boolean): ReadonlySet<string> {
  if (set.has(id) === present) return set;
  const next = new Set(set);
  if (present) next.add(id);
  else next.delete(id);
  return next;
}

function WallTile({
  device,
  visible,
  live,
  onView,
  onNoVideo,
}: {
  device: Device;
  visible: boolean;
  live: boolean;
  onView: (sessionId: string, visible: boolean) => void;
  onNoVideo: (sessionId: string) => void;
}) {
  const id = device.session_id;
  const tile = useRef<HTMLLIElement>(null);
  // Out of view, a tile takes neither video nor screenshots: nobody would see them.
  useEffect(() => {
    const element = tile.current;
    if (!element || typeof IntersectionObserver === 'undefined') return onView(id, true);
    const observer = new IntersectionObserver(([entry]) => onView(id, entry.isIntersecting));
    observer.observe(element);
    return () => {
      observer.disconnect();
      onView(id, false);
    };
  }, [id, onView]);
  const video = useLiveVideo(id, { enabled: live, maxFps: TILE_FPS, maxWidth: TILE_WIDTH });
  useEffect(() => {
    if (video.status === 'fallback') onNoVideo(id);
  }, [video.status, id, onNoVideo]);
  const showsVideo = video.status === 'connecting' || video.status === 'playing';
  const screen = useLiveScreen(id, undefined, visible && !showsVideo);
  return (
    <li ref={tile} className={styles.tile}>
      <Link to={`/devices/${encodeURIComponent(id)}`}>
        {device.name} · {device.agent}
      </Link>
      {device.holder && <span className={styles.muted}>Automation: {holderText(device.holder)}</span>}
      <DeviceScreen screen={screen} name={device.name} video={video} />
    </li>
  );
}

/** The pop-out window: the screen alone, refreshing, opened by the panel's "Pop out". */
export function DevicePopout() {
  const { sessionId = '' } = useParams();
  const devices = useDevices();
  const name = devices.data?.items.find((d) => d.session_id === sessionId)?.name ?? sessionId;
  const screen = useLiveScreen(sessionId);
  return (
    <main className={styles.popout}>
      <h1 className="visually-hidden">{name}</h1>
      <DeviceScreen screen={screen} name={name} />
    </main>
  );
}
