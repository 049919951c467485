import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../api/client';
import { agentKeys, useDevices, type Device } from '../agents/queries';
import { relativeTime } from '../ui/format';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { cardClass } from '../ui/Field';
import { DeviceScreen } from './DeviceScreen';
import { useLiveScreen } from './live-screen';
import { useLiveVideo } from './live-video';
import styles from './devices.module.css';

type Holder = NonNullable<Device['holder']>;

/** What holds a device for automation (docs/device-tests.md): member, run, build, since when. */
export function holderText(holder: Holder): string {
  const run = holder.run ? `“${holder.run}”` : 'a WebDriver session';
  return `${run} of ${holder.member}${holder.build_id ? ` on build #${holder.build_id}` : ''}, ${relativeTime(holder.since)}`;
}

/** DELETE /device-test-sessions/:id (Admins): Appium's session deleted, the device freed. */
function useEndHubSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(api.DELETE('/api/v1/device-test-sessions/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: agentKeys.devices }),
  });
}

/** The Devices page's holder cell: who runs what on the device, a link to watch it, and an Admin's End session. */
export function HolderCell({ device, isAdmin }: { device: Device; isAdmin: boolean }) {
  const end = useEndHubSession();
  const { holder } = device;
  if (!holder) return <span className={styles.muted}>—</span>;
  // The relay names the session's id to Admins and its own member only (the key its commands go by).
  const sessionId = holder.session_id;
  return (
    <>
      {holderText(holder)} · <Link to={`/devices/${encodeURIComponent(device.session_id)}`}>Watch</Link>
      {isAdmin && sessionId && (
        <>
          {' '}
          <ConfirmDialog
            trigger={<Button size="small">End session…</Button>}
            title={`End the session on ${device.name}?`}
            description={
              <p>
                The WebDriver session of {holder.member} is deleted on Appium and the device is freed; its client’s next command fails with
                “invalid session id”. What was recorded is kept.
              </p>
            }
            confirmLabel="End session"
            onConfirm={() => end.mutateAsync(sessionId)}
          />
        </>
      )}
    </>
  );
}

/** The device panel's notice while automation holds the device: watching only, no input. */
export function HeldNotice({ holder }: { holder: Holder }) {
  return (
    <p className={styles.muted} role="status">
      Automation holds this device: {holderText(holder)}. You are watching; input is off while it runs.
    </p>
  );
}

/** The build page's running device tests: the live video of each device a session of this build holds, read-only. */
export function RunningDeviceTests({ buildId }: { buildId: number }) {
  const devices = useDevices();
  const held = (devices.data?.items ?? []).filter((d) => d.holder?.build_id === buildId);
  if (!held.length) return null;
  return (
    <section className={cardClass} aria-labelledby="running-tests-title">
      <h2 id="running-tests-title">Running device tests</h2>
      <ul className={styles.wall}>
        {held.map((device) => (
          <RunningSession key={device.session_id} device={device} buildId={buildId} />
        ))}
      </ul>
    </section>
  );
}

function RunningSession({ device, buildId }: { device: Device; buildId: number }) {
  const video = useLiveVideo(device.session_id, { maxFps: 10, maxWidth: 360 });
  const screen = useLiveScreen(device.session_id, undefined, video.status === 'fallback');
  return (
    <li className={styles.tile}>
      <Link to={`/devices/${encodeURIComponent(device.session_id)}?build=${buildId}`}>
        {device.name} · {device.holder ? holderText(device.holder) : ''}
      </Link>
      <DeviceScreen screen={screen} name={device.name} video={video} />
    </li>
  );
}
