import { FormError, cardClass } from '../../ui/Field';
import { StatusBadge } from '../../ui/StatusBadge';
import { Empty, Loading } from '../../ui/States';
import { absoluteTime, relativeTime } from '../../ui/format';
import { useBuildHistory } from '../queries';
import styles from '../build-page.module.css';

/** Who changed the review status, from what to what, when (GET /builds/:id/history). */
export function StatusHistory({ buildId }: { buildId: number }) {
  const history = useBuildHistory(buildId);
  return (
    <section className={cardClass} aria-labelledby="history-title">
      <h2 id="history-title">Status history</h2>
      {history.isPending ? (
        <Loading label="Loading the history…" />
      ) : history.isError ? (
        <FormError error={history.error} />
      ) : history.data.length === 0 ? (
        <Empty>No status changes recorded.</Empty>
      ) : (
        <ol className={styles.history}>
          {history.data.map((entry, index) => (
            <li key={entry.id}>
              {index === 0 ? (
                <span>Uploaded with</span>
              ) : (
                <>
                  <StatusBadge status={entry.from_status} /> <span aria-label="to">→</span>
                </>
              )}{' '}
              <StatusBadge status={entry.to_status} />
              <span className={styles.note}>
                {entry.changed_by} ·{' '}
                <time dateTime={entry.changed_at} title={absoluteTime(entry.changed_at)}>
                  {relativeTime(entry.changed_at)}
                </time>
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
