import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, call } from '../api/client';
import { useDevices } from '../agents/queries';
import { CopyField } from '../ui/CopyField';
import { FormError, cardClass } from '../ui/Field';
import { AttachScreen } from './AttachScreen';
import { DeviceInput, useDeviceInput } from './DeviceInput';
import { canWrite } from '../auth/queries';
import { useCurrentMember } from '../app/RequireAuth';
import { Button } from '../ui/Button';
import { DeviceScreen } from './DeviceScreen';
import { UiTree } from './UiTree';
import { useLiveScreen } from './live-screen';
import { useLiveVideo } from './live-video';
import { useScreenGestures } from './screen-gestures';
import { DeviceButtons } from './DeviceButtons';
import { RecordSession } from './RecordSession';
import { HeldNotice } from './hub-sessions';
import styles from './devices.module.css';

/**
 * The live device panel: the device's H.264 stream (screenshots about once a second where the
 * browser or the agent cannot), the UI tree drawn over it, and control on the picture.
 */
export function DevicePage() {
  const { sessionId = '' } = useParams();
  const [params] = useSearchParams();
  const buildParam = Number(params.get('build'));
  const devices = useDevices();
  const device = devices.data?.items.find((d) => d.session_id === sessionId);
  const video = useLiveVideo(sessionId);
  // While the video shows the device, a capture every 10 s is enough for "Attach this screen".
  const screen = useLiveScreen(sessionId, video.status === 'playing' ? 10_000 : 1000);
  const gestures = useScreenGestures(sessionId);
  // The tree changes less often than the picture; refetched while the page is visible.
  const tree = useQuery({
    queryKey: ['sessions', sessionId, 'ui-tree'],
    queryFn: () => call(api.GET('/api/v1/sessions/{sessionId}/ui-tree', { params: { path: { sessionId } } })),
    refetchInterval: 5000,
  });
  // By index in the agent's list: the tree is refetched, the position stays.
  const [selectedIndex, setSelectedIndex] = useState<number | null>(null);
  const all = tree.data?.elements ?? [];
  const selected = selectedIndex !== null ? (all[selectedIndex] ?? null) : null;
  const me = useCurrentMember();
  // Input changes the device: offered to members who may change things (not Viewers), never while automation holds it.
  const holder = device?.holder ?? null;
  const control = canWrite(me.role) && !holder;
  const input = useDeviceInput(sessionId);
  // Hover boxes for the elements smaller than the screen; the hierarchy lists every one.
  const platform = device?.platform === 'ios' || device?.platform === 'android' ? device.platform : null;
  const initialBuildId = Number.isInteger(buildParam) && buildParam > 0 ? buildParam : null;
  const elements = all.filter((e) => e.frame.width > 0 && e.frame.height > 0 && e.frame.width * e.frame.height < 1);
  return (
    <section className={styles.page} aria-labelledby="device-title">
      <p>
        <Link to="/devices">← Devices</Link>
      </p>
      <div className={styles.titleRow}>
      <h1 id="device-title">{device ? `${device.name} (${device.platform === 'ios' ? 'iOS' : 'Android'} ${device.os_version})` : sessionId}</h1>
        <Button
          size="small"
          onClick={() => window.open(`/devices/${encodeURIComponent(sessionId)}/screen`, `svc-device-${sessionId}`, 'popup,width=420,height=860')}
        >
          Pop out
        </Button>
      </div>
      {device && (
        <p className={styles.muted}>
          On {device.agent} ({device.agent_online ? 'online' : 'offline'}) · {device.state === 'booted' ? 'booted' : 'shut down'} · session{' '}
          <code>{sessionId}</code>
        </p>
      )}
      {holder && <HeldNotice holder={holder} />}
      <div className={styles.panel}>
        <DeviceScreen
          screen={screen}
          name={device?.name ?? sessionId}
          elements={elements}
          selected={selected}
          onSelect={(element) => setSelectedIndex(all.indexOf(element))}
          video={video}
          gestures={control ? gestures : undefined}
        />
        <aside className={`${cardClass} ${styles.details}`} aria-label="Element details">
          <UiTree elements={all} selected={selectedIndex} onSelect={setSelectedIndex} />
          {selected ? (
            <>
              <dl className={styles.props}>
                <dt>Role</dt>
                <dd>{selected.role || '—'}</dd>
                <dt>Label</dt>
                <dd>{selected.label || '—'}</dd>
                <dt>Enabled</dt>
                <dd>{selected.enabled ? 'yes' : 'no'}</dd>
              </dl>
              {selected.identifier ? <CopyField label="Identifier" value={selected.identifier} /> : <p className={styles.muted}>No identifier.</p>}
              {control && (
                <div>
                  <Button
                    size="small"
                    disabled={input.isPending}
                    onClick={() =>
                      input.mutate({
                        method: 'tap',
                        point: { x: selected.frame.x + selected.frame.width / 2, y: selected.frame.y + selected.frame.height / 2 },
                      })
                    }
                  >
                    Tap this element
                  </Button>
                </div>
              )}
            </>
          ) : (
            <p className={styles.muted}>Pick an element in the hierarchy or on the screen for its role, label and identifier.</p>
          )}
          {tree.isError && <FormError error={tree.error} />}
          {control && <DeviceButtons gestures={gestures} />}
          {control && <DeviceInput input={input} />}
          <RecordSession sessionId={sessionId} platform={platform} initialBuildId={initialBuildId} allowed={control} />
          <AttachScreen screen={screen.blob} deviceName={device?.name ?? sessionId} platform={platform} initialBuildId={initialBuildId} />
        </aside>
      </div>
    </section>
  );
}
