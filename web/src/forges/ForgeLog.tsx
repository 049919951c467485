import { relativeTime } from '../ui/format';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import { tableClass, tableWrapClass } from '../ui/table';
import styles from '../webhooks/webhooks.module.css';
import { useForgeDeliveries, useForgeLog, type ForgeRef } from './queries';

/** One forge's attempts (newest 50): when, which status, the forge's answer, how long; refreshed while open. */
export function ForgeLog({ forgeRef, name }: { forgeRef: ForgeRef; name: string }) {
  const log = useForgeLog(forgeRef);
  if (log.isPending) return <Loading label="Loading deliveries…" />;
  if (log.isError) return <FormError error={log.error} />;
  if (!log.data.deliveries.length) return <p className={styles.muted}>No deliveries yet. Send a test status, or upload a build with a commit of a listed repository.</p>;
  return (
    <div className={tableWrapClass}>
      <table className={`${tableClass} ${styles.log}`} aria-label={`Deliveries of ${name}`}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Status</th>
            <th scope="col">Outcome</th>
            <th scope="col">Response</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {log.data.deliveries.map((d, i) => (
            <tr key={`${d.status_id}-${i}`}>
              <td>
                <time dateTime={d.attempted_at} title={d.attempted_at}>
                  {relativeTime(d.attempted_at)}
                </time>
              </td>
              <td>
                <code>{d.context}</code> {d.state} · {d.repository}@<code>{d.commit.slice(0, 7)}</code>
                {d.test && ' (test)'}
              </td>
              <td className={d.error === null ? styles.ok : styles.failed}>
                {d.error === null ? 'Delivered' : 'Failed'}
                {d.error !== null && <span className={styles.errorText}> · {d.error}</span>}
              </td>
              <td>{d.status_code === null ? '—' : `HTTP ${d.status_code}`}</td>
              <td>{d.duration_ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every status the relay queued for any forge (newest 50), with where each stands. */
export function StatusDeliveries() {
  const log = useForgeDeliveries(true);
  if (log.isPending) return <Loading label="Loading status deliveries…" />;
  if (log.isError) return <FormError error={log.error} />;
  if (!log.data.deliveries.length) return <p className={styles.muted}>No statuses yet. Upload a build with a commit of a listed repository.</p>;
  return (
    <div className={tableWrapClass}>
      <table className={`${tableClass} ${styles.log}`} aria-label="Status deliveries">
        <thead>
          <tr>
            <th scope="col">Queued</th>
            <th scope="col">Commit</th>
            <th scope="col">Context</th>
            <th scope="col">State</th>
            <th scope="col">Delivery</th>
            <th scope="col">Attempts</th>
          </tr>
        </thead>
        <tbody>
          {log.data.deliveries.map((d) => (
            <tr key={d.id}>
              <td>
                <time dateTime={d.created_at} title={d.created_at}>
                  {relativeTime(d.created_at)}
                </time>
              </td>
              <td>
                {d.repository}@<code>{d.commit.slice(0, 7)}</code>
              </td>
              <td>
                <code>{d.context}</code>
              </td>
              <td>
                {d.state} · {d.description}
              </td>
              <td className={d.status === 'failed' ? styles.failed : d.status === 'delivered' ? styles.ok : undefined}>
                {d.status}
                {d.last_error && <span className={styles.errorText}> · {d.last_error}</span>}
              </td>
              <td>{d.attempts.length}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
