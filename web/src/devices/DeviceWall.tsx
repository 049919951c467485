import { Link, useParams, useSearchParams } from 'react-router';
import { useDevices, type Device } from '../agents/queries';
import { FormError } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { DeviceScreen } from './DeviceScreen';
import { useLiveScreen } from './live-screen';
import styles from './devices.module.css';

/** Several booted devices side by side, each refreshing like the panel (`?agent=` narrows it). */
export function DeviceWall() {
  const devices = useDevices();
  const [params] = useSearchParams();
  const agent = params.get('agent');
  const booted = (devices.data?.items ?? []).filter((d) => d.state === 'booted' && d.agent_online && (!agent || d.agent === agent));
  return (
    <section className={styles.page} aria-labelledby="wall-title">
      <p>
        <Link to="/devices">← Devices</Link>
      </p>
      <h1 id="wall-title">Device wall</h1>
      {devices.isPending ? (
        <Loading label="Loading devices…" />
      ) : devices.isError ? (
        <FormError error={devices.error} />
      ) : booted.length === 0 ? (
        <Empty>No booted device of an online agent.</Empty>
      ) : (
        <ul className={styles.wall}>
          {booted.map((device) => (
            <WallTile key={device.session_id} device={device} />
          ))}
        </ul>
      )}
    </section>
  );
}

function WallTile({ device }: { device: Device }) {
  const screen = useLiveScreen(device.session_id);
  return (
    <li className={styles.tile}>
      <Link to={`/devices/${encodeURIComponent(device.session_id)}`}>
        {device.name} · {device.agent}
      </Link>
      <DeviceScreen screen={screen} name={device.name} />
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
