import { Link, useSearchParams } from 'react-router';
import { useDevices } from '../agents/queries';
import { FormError } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { offlineClass, onlineClass, tableClass, tableWrapClass } from '../ui/table';
import { useCurrentMember } from '../app/RequireAuth';
import { HolderCell } from './hub-sessions';
import styles from './devices.module.css';

/** GET /api/v1/devices: every device of every agent the relay knows, filterable by agent (?agent=). */
export function DevicesPage() {
  const devices = useDevices();
  const [params, setParams] = useSearchParams();
  const agent = params.get('agent');
  const isAdmin = useCurrentMember().role === 'Admin';
  const items = devices.data?.items.filter((d) => !agent || d.agent === agent) ?? [];
  const agents = [...new Set(devices.data?.items.map((d) => d.agent) ?? [])];
  return (
    <section className={styles.page} aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      <div className={styles.toolbar}>
        <label>
          Agent{' '}
          <select value={agent ?? ''} onChange={(e) => setParams(e.target.value ? { agent: e.target.value } : {}, { replace: true })}>
            <option value="">All agents</option>
            {agents.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <Link to={`/devices/wall${agent ? `?agent=${encodeURIComponent(agent)}` : ''}`}>Wall of booted devices</Link>
      </div>
      {devices.isPending ? (
        <Loading label="Loading devices…" />
      ) : devices.isError ? (
        <FormError error={devices.error} />
      ) : items.length === 0 ? (
        <Empty>No devices. Devices appear when an agent (`svc agent`) connects and lists them.</Empty>
      ) : (
        <div className={tableWrapClass}>
          <table className={tableClass} aria-label="Devices">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Platform</th>
                <th scope="col">OS</th>
                <th scope="col">State</th>
                <th scope="col">Agent</th>
                <th scope="col">Held by</th>
              </tr>
            </thead>
            <tbody>
              {items.map((device) => (
                <tr key={device.session_id}>
                  <th scope="row">
                    <Link to={`/devices/${encodeURIComponent(device.session_id)}`}>{device.name}</Link>
                  </th>
                  <td>{device.platform === 'ios' ? 'iOS' : device.platform === 'android' ? 'Android' : device.platform}</td>
                  <td>{device.os_version}</td>
                  <td>{device.state === 'booted' ? 'Booted' : 'Shut down'}</td>
                  <td>
                    {device.agent} <span className={device.agent_online ? onlineClass : offlineClass}>({device.agent_online ? 'online' : 'offline'})</span>
                  </td>
                  <td>
                    <HolderCell device={device} isAdmin={isAdmin} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
