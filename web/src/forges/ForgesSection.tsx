import { useState, type FormEvent } from 'react';
import { relativeTime } from '../builds/format';
import { Button } from '../ui/Button';
import { FormError, TextField, cardClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { tableClass, tableWrapClass } from '../ui/table';
import styles from '../webhooks/webhooks.module.css';
import { useForgeDeliveries, useForges, useSendTestStatus, type Forge } from './queries';

/**
 * The forges of svc.config.json (docs/integrations.md), for Admins: each with its repositories and
 * whether it is used, a "send test status" form, and the delivery log of the statuses the relay
 * queued. Read-only like the file's webhooks: the file is the operator's.
 */
export function ForgesSection() {
  const forges = useForges();
  const [showLog, setShowLog] = useState(false);
  if (forges.isPending || !forges.data?.forges.length) return forges.isError ? <FormError error={forges.error} /> : null;
  return (
    <section aria-labelledby="forges-title" className={styles.page}>
      <h2 id="forges-title">Forges: review verdicts as commit statuses</h2>
      <p className={styles.muted}>
        From svc.config.json: builds uploaded with a commit of a listed repository get a status on it, pending until a reviewer
        sets Done (success) or Rejected (failure). Tokens stay in the relay's environment.
      </p>
      <ul className={styles.list}>
        {forges.data.forges.map((forge) => (
          <ForgeItem key={forge.index} forge={forge} />
        ))}
      </ul>
      <Button size="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
        {showLog ? 'Hide status deliveries' : 'Status deliveries'}
      </Button>
      {showLog && <ForgeDeliveryLog />}
    </section>
  );
}

function ForgeItem({ forge }: { forge: Forge }) {
  const test = useSendTestStatus();
  const [repository, setRepository] = useState(forge.repositories[0] ?? '');
  const [commit, setCommit] = useState('');
  const name = `svc.config.json forge ${forge.index}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    test.mutate({ index: forge.index, repository, commit: commit.trim() });
  };
  return (
    <li className={`${cardClass} ${styles.hook}`} aria-label={name}>
      <div className={styles.hookHead}>
        <code className={styles.url}>{forge.api_url}</code>
        <span className={forge.problem === null ? styles.enabled : styles.disabled}>{forge.problem === null ? 'In use' : 'Not used'}</span>
      </div>
      <p className={styles.muted}>
        {forge.type} · {forge.auth === 'app' ? 'GitHub App (check runs)' : 'token'} · context <code>{forge.context}</code> ·{' '}
        {forge.repositories.join(', ')}
        {forge.problem !== null && ` · not used: ${forge.problem}`}
      </p>
      {forge.problem === null && (
        <form onSubmit={submit} className={styles.actions} aria-label={`Send a test status with ${name}`}>
          <label>
            Repository{' '}
            <select value={repository} onChange={(e) => setRepository(e.target.value)}>
              {forge.repositories.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <TextField label="Commit SHA" value={commit} onChange={(e) => setCommit(e.target.value)} maxLength={64} required />
          <Button size="small" type="submit" disabled={test.isPending}>
            {test.isPending ? 'Sending…' : 'Send test status'}
          </Button>
        </form>
      )}
      <FormError error={test.error} />
      {test.data && (
        <p role="status" className={test.data.ok ? styles.ok : styles.failed}>
          Test status <code>{test.data.context}</code>: {test.data.ok ? 'posted' : `failed (${test.data.error})`}
        </p>
      )}
    </li>
  );
}

function ForgeDeliveryLog() {
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
