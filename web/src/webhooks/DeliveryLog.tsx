import { relativeTime } from '../ui/format';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import { useDeliveries, type DeliveryAttempt, type DeliverySource } from './queries';
import { tableClass, tableWrapClass } from '../ui/table';
import styles from './webhooks.module.css';

export function outcomeText(attempt: DeliveryAttempt): string {
  return attempt.error === null ? 'Delivered' : 'Failed';
}

/** The newest 50 attempts (GET /webhooks/:id/deliveries, or a file entry's), refreshed while open. */
export function DeliveryLog({ source, name }: { source: DeliverySource; name: string }) {
  const log = useDeliveries(source);
  if (log.isPending) return <Loading label="Loading deliveries…" />;
  if (log.isError) return <FormError error={log.error} />;
  if (log.data.deliveries.length === 0) return <p className={styles.muted}>No deliveries yet. Send a test delivery, or set a build to Done or Rejected.</p>;
  return (
    <div className={tableWrapClass}>
      <table className={`${tableClass} ${styles.log}`} aria-label={`Deliveries of ${name}`}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempt</th>
            <th scope="col">Response</th>
            <th scope="col">Time</th>
            <th scope="col">Delivery id</th>
          </tr>
        </thead>
        <tbody>
          {log.data.deliveries.map((attempt) => (
            <tr key={`${attempt.delivery_id}-${attempt.attempt}`}>
              <td>
                <time dateTime={attempt.attempted_at} title={attempt.attempted_at}>
                  {relativeTime(attempt.attempted_at)}
                </time>
              </td>
              <td>
                <code>{attempt.event}</code>
              </td>
              <td className={attempt.error === null ? styles.ok : styles.failed}>
                {outcomeText(attempt)}
                {attempt.error !== null && <span className={styles.errorText}> · {attempt.error}</span>}
              </td>
              <td>{attempt.attempt}</td>
              <td>{attempt.status_code === null ? '—' : `HTTP ${attempt.status_code}`}</td>
              <td>{attempt.duration_ms} ms</td>
              <td>
                <code className={styles.deliveryId}>{attempt.delivery_id.slice(0, 8)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The outcome of a test delivery, announced where the button was pressed. */
export function TestResult({ attempt }: { attempt: DeliveryAttempt }) {
  const answer = attempt.status_code === null ? 'no response' : `HTTP ${attempt.status_code}`;
  return (
    <p role="status" className={attempt.error === null ? styles.ok : styles.failed}>
      Test delivery: {outcomeText(attempt)} ({answer}
      {attempt.error !== null && attempt.status_code === null ? `: ${attempt.error}` : ''}) in {attempt.duration_ms} ms
    </p>
  );
}
