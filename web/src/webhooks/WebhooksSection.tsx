import { useState, type FormEvent } from 'react';
import { useCurrentMember } from '../app/RequireAuth';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyField } from '../ui/CopyField';
import { FormError, TextField, cardClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { Empty, Loading } from '../ui/States';
import { ConfigWebhooks } from './ConfigWebhooks';
import { DeliveryLog, TestResult } from './DeliveryLog';
import {
  newSecret,
  useConfigWebhooks,
  useCreateWebhook,
  useDeleteWebhook,
  useTestDelivery,
  useUpdateWebhook,
  useWebhooks,
  type Webhook,
} from './queries';
import { SignatureSnippet } from './SignatureSnippet';
import styles from './webhooks.module.css';

/** The relay's URL refusals (SSRF rule, validation of `url`) belong under the URL field. */
const URL_ERROR = { url: /^(Webhook URL refused|url\b)/i };

/** A secret the relay will never show again, with what to do with it. */
interface RevealedSecret {
  webhookId: number;
  secret: string;
}

/** The webhooks: those added here and those of svc.config.json (a section of the Integrations page). */
export function WebhooksSection() {
  const hooks = useWebhooks();
  const fromFile = useConfigWebhooks();
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  return (
    <section className={styles.page} aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className={styles.lead}>
        When a build is set to Done or Rejected the relay POSTs a signed <code>build.status_changed</code> event to every enabled
        webhook. Loopback, this host, link-local and cloud-metadata addresses are refused; LAN addresses are fine.
      </p>
      <CreateWebhook onCreated={setRevealed} />
      {revealed && <SecretOnce revealed={revealed} onDismiss={() => setRevealed(null)} />}
      {hooks.isPending ? (
        <Loading label="Loading webhooks…" />
      ) : hooks.isError ? (
        <FormError error={hooks.error} />
      ) : hooks.data.webhooks.length === 0 ? (
        <Empty>{fromFile.data?.webhooks.length ? 'No webhooks added here yet.' : 'No webhooks yet.'}</Empty>
      ) : (
        <ul className={styles.list}>
          {hooks.data.webhooks.map((hook) => (
            <WebhookItem key={hook.id} hook={hook} onSecret={setRevealed} />
          ))}
        </ul>
      )}
      {fromFile.isError && <FormError error={fromFile.error} />}
      {!!fromFile.data?.webhooks.length && <ConfigWebhooks hooks={fromFile.data.webhooks} />}
    </section>
  );
}

function SecretOnce({ revealed, onDismiss }: { revealed: RevealedSecret; onDismiss: () => void }) {
  return (
    <div className={`${cardClass} ${styles.secret}`} role="region" aria-label="Signing secret">
      <p>
        <strong>Signing secret of webhook #{revealed.webhookId}.</strong> Copy it now: the relay never shows it again. Give it to
        the receiver (e.g. as <code>SVC_WEBHOOK_SECRET</code>).
      </p>
      <CopyField label="Signing secret" value={revealed.secret} />
      <SignatureSnippet />
      <div>
        <Button onClick={onDismiss}>I have stored it</Button>
      </div>
    </div>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (revealed: RevealedSecret) => void }) {
  const create = useCreateWebhook();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [signed, setSigned] = useState(true);
  const { field, message } = splitError(create.error, URL_ERROR);
  if (!open) {
    return (
      <div>
        <Button variant="primary" onClick={() => setOpen(true)}>
          New webhook
        </Button>
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const secret = signed ? newSecret() : null;
    create.mutate(
      { url: url.trim(), secret, enabled: true },
      {
        onSuccess: (hook) => {
          setUrl('');
          setOpen(false);
          if (secret) onCreated({ webhookId: hook.id, secret });
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className={`${cardClass} ${styles.form}`} aria-label="New webhook">
      <PayloadUrlField value={url} onChange={setUrl} error={field === 'url' ? message : null} />
      <label className={styles.check}>
        <input type="checkbox" checked={signed} onChange={(e) => setSigned(e.target.checked)} /> Sign deliveries with a new secret
        (shown once)
      </label>
      {field === null && <FormError error={create.error} />}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add webhook'}
        </Button>
        <Button onClick={() => setOpen(false)}>Cancel</Button>
      </div>
    </form>
  );
}

function WebhookItem({ hook, onSecret }: { hook: Webhook; onSecret: (revealed: RevealedSecret) => void }) {
  const me = useCurrentMember();
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const update = useUpdateWebhook();
  const remove = useDeleteWebhook();
  const test = useTestDelivery();
  const name = `webhook #${hook.id}`;
  const rotate = () => {
    const secret = newSecret();
    update.mutate({ id: hook.id, secret }, { onSuccess: () => onSecret({ webhookId: hook.id, secret }) });
  };
  return (
    <li className={`${cardClass} ${styles.hook}`} aria-label={name}>
      {editing ? (
        <EditUrl hook={hook} onDone={() => setEditing(false)} />
      ) : (
        <div className={styles.hookHead}>
          <code className={styles.url}>{hook.url}</code>
          <span className={hook.enabled ? styles.enabled : styles.disabled}>{hook.enabled ? 'Enabled' : 'Disabled'}</span>
        </div>
      )}
      <p className={styles.muted}>
        #{hook.id} · {hook.has_secret ? 'signed' : 'not signed'} · added {hook.created_at} UTC
      </p>
      {!editing && (
        <div className={styles.actions}>
          <label className={styles.check}>
            <input
              type="checkbox"
              checked={hook.enabled}
              disabled={update.isPending}
              onChange={(e) => update.mutate({ id: hook.id, enabled: e.target.checked })}
            />{' '}
            Enabled
          </label>
          <Button size="small" onClick={() => setEditing(true)} aria-label={`Edit URL of ${name}`}>
            Edit URL
          </Button>
          <Button size="small" onClick={rotate} disabled={update.isPending} aria-label={`New secret for ${name}`}>
            {hook.has_secret ? 'New secret' : 'Add secret'}
          </Button>
          {hook.has_secret && (
            <Button size="small" onClick={() => update.mutate({ id: hook.id, secret: null })} aria-label={`Remove secret of ${name}`}>
              Remove secret
            </Button>
          )}
          {me.role === 'Admin' && (
            <Button size="small" onClick={() => test.mutate({ webhookId: hook.id }, { onSuccess: () => setShowLog(true) })} disabled={test.isPending}>
              {test.isPending ? 'Sending…' : 'Send test delivery'}
            </Button>
          )}
          <Button size="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
            {showLog ? 'Hide deliveries' : 'Deliveries'}
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
                <code>{hook.url}</code> will receive no more events, and its delivery log is deleted with it.
              </p>
            }
            confirmLabel="Delete webhook"
            onConfirm={() => remove.mutateAsync(hook.id)}
          />
        </div>
      )}
      <FormError error={update.error ?? test.error} />
      {test.data && <TestResult attempt={test.data} />}
      {showLog && <DeliveryLog source={{ webhookId: hook.id }} name={name} />}
    </li>
  );
}

function EditUrl({ hook, onDone }: { hook: Webhook; onDone: () => void }) {
  const update = useUpdateWebhook();
  const [url, setUrl] = useState(hook.url);
  const { field, message } = splitError(update.error, URL_ERROR);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: hook.id, url: url.trim() }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} className={styles.form} aria-label={`Edit webhook #${hook.id}`}>
      <PayloadUrlField value={url} onChange={setUrl} error={field === 'url' ? message : null} />
      {field === null && <FormError error={update.error} />}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" size="small" disabled={update.isPending}>
          Save
        </Button>
        <Button size="small" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** The one URL input of both forms; the relay's refusal is shown under it. */
function PayloadUrlField({ value, onChange, error }: { value: string; onChange: (url: string) => void; error: string | null }) {
  return (
    <TextField
      label="Payload URL"
      type="url"
      placeholder="https://ci.example.com/hooks/svc"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      required
      autoFocus
      error={error}
    />
  );
}
