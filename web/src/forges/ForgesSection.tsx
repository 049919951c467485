import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormError, TextField, cardClass } from '../ui/Field';
import styles from '../webhooks/webhooks.module.css';
import { ForgeForm } from './ForgeForm';
import { ForgeLog, StatusDeliveries } from './ForgeLog';
import { forgeName, forgeRef, useDeleteForge, useForges, useSendTestStatus, type Forge } from './queries';

/**
 * The forges (docs/integrations.md), for Admins: those of svc.config.json (read-only: the file is
 * the operator's) and those added here (tokens kept encrypted with SVC_SECRETS_KEY); each with
 * whether it is used, a "send test status" form and its delivery log.
 */
export function ForgesSection() {
  const forges = useForges();
  const [adding, setAdding] = useState(false);
  const [showLog, setShowLog] = useState(false);
  return (
    <section aria-labelledby="forges-title" className={styles.page}>
      <h2 id="forges-title">Forges: review verdicts as commit statuses</h2>
      <p className={styles.muted}>
        Builds uploaded with a commit of a listed repository get a status on it, pending until a reviewer sets Done (success) or
        Rejected (failure). Forges added here follow the webhooks' rule: LAN addresses are fine, this host is not.
      </p>
      {adding ? (
        <ForgeForm onDone={() => setAdding(false)} />
      ) : (
        <div>
          <Button variant="primary" onClick={() => setAdding(true)}>
            New forge
          </Button>
        </div>
      )}
      {forges.isError && <FormError error={forges.error} />}
      {!!forges.data?.forges.length && (
        <>
          <ul className={styles.list}>
            {forges.data.forges.map((forge) => (
              <ForgeItem key={`${forge.source}-${forge.index ?? forge.id}`} forge={forge} />
            ))}
          </ul>
          <div>
            <Button size="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
              {showLog ? 'Hide status deliveries' : 'Status deliveries'}
            </Button>
          </div>
          {showLog && <StatusDeliveries />}
        </>
      )}
    </section>
  );
}

function ForgeItem({ forge }: { forge: Forge }) {
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const remove = useDeleteForge();
  const name = forgeName(forge);
  if (editing) {
    return (
      <li aria-label={name}>
        <ForgeForm forge={forge} onDone={() => setEditing(false)} />
      </li>
    );
  }
  return (
    <li className={`${cardClass} ${styles.hook}`} aria-label={name}>
      <div className={styles.hookHead}>
        <code className={styles.url}>{forge.api_url}</code>
        <span className={forge.problem === null ? styles.enabled : styles.disabled}>{forge.problem === null ? 'In use' : 'Not used'}</span>
      </div>
      <p className={styles.muted}>
        {forge.source === 'config' ? 'svc.config.json' : `#${forge.id}, added here`} · {forge.type} ·{' '}
        {forge.auth === 'app' ? 'GitHub App (check runs)' : 'token'} · context <code>{forge.context}</code> · {forge.repositories.join(', ')}
        {forge.problem !== null && ` · not used: ${forge.problem}`}
      </p>
      {forge.problem === null && <TestStatusForm forge={forge} name={name} onSent={() => setShowLog(true)} />}
      <div className={styles.actions}>
        <Button size="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)} aria-label={`${showLog ? 'Hide deliveries' : 'Deliveries'} of ${name}`}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </Button>
        {forge.source === 'dashboard' && (
          <>
            <Button size="small" onClick={() => setEditing(true)} aria-label={`Edit ${name}`}>
              Edit
            </Button>
            <ConfirmDialog
              trigger={
                <Button size="small" aria-label={`Delete ${name}`}>
                  Delete
                </Button>
              }
              title={`Delete ${name}?`}
              description={
                <p>
                  Builds of {forge.repositories.join(', ')} get no more statuses from <code>{forge.api_url}</code>; its token and delivery log are deleted.
                  Statuses already posted stay on their commits.
                </p>
              }
              confirmLabel="Delete forge"
              onConfirm={() => remove.mutateAsync(forge.id!)}
            />
          </>
        )}
      </div>
      <FormError error={remove.error} />
      {showLog && <ForgeLog forgeRef={forgeRef(forge)} name={name} />}
    </li>
  );
}

/** One `<context>/test` success status on a commit the Admin names, never the context branch protection requires. */
function TestStatusForm({ forge, name, onSent }: { forge: Forge; name: string; onSent: () => void }) {
  const test = useSendTestStatus();
  const [repository, setRepository] = useState(forge.repositories[0] ?? '');
  const [commit, setCommit] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    test.mutate({ ref: forgeRef(forge), repository, commit: commit.trim() }, { onSuccess: onSent });
  };
  return (
    <>
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
      <FormError error={test.error} />
      {test.data && (
        <p role="status" className={test.data.ok ? styles.ok : styles.failed}>
          Test status <code>{test.data.context}</code>: {test.data.ok ? 'posted' : `failed (${test.data.error})`}
        </p>
      )}
    </>
  );
}
