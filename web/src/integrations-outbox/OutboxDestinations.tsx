import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { relativeTime } from '../ui/format';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import { tableClass, tableWrapClass } from '../ui/table';

/**
 * Admins: every destination of the one delivery path (docs/integrations.md "One delivery path")
 * with its counts and newest error (credentials redacted); refreshed while shown. For the lead to
 * mount on the Integrations page.
 */
export function OutboxDestinations() {
  const destinations = useQuery({ queryKey: ['outbox', 'destinations'], queryFn: () => call(api.GET('/api/v1/outbox/destinations')), refetchInterval: 5000 });
  if (destinations.isPending) return <Loading label="Loading deliveries…" />;
  if (destinations.isError) return <FormError error={destinations.error} />;
  if (!destinations.data.length) return <p>Nothing sent yet.</p>;
  return (
    <div className={tableWrapClass}>
      <table className={tableClass} aria-label="Outgoing deliveries">
        <thead>
          <tr>
            <th scope="col">Destination</th>
            <th scope="col">Queued</th>
            <th scope="col">Delivered</th>
            <th scope="col">Failed</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {destinations.data.map((d) => (
            <tr key={d.destination}>
              <td><code>{d.destination}</code></td>
              <td>{d.queued}</td>
              <td>{d.delivered}</td>
              <td>{d.failed}</td>
              <td>{d.last_attempt_at ? <time dateTime={d.last_attempt_at}>{relativeTime(d.last_attempt_at)}</time> : '—'}</td>
              <td>{d.last_error ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
