import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormEnd, FormError, SelectField, TextField, cardClass, formClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import styles from '../webhooks/webhooks.module.css';
import { chatRouteName, useAddChatRoute, useChatSettings, useRemoveChatRoute, type ChatRoute } from './queries';

/** The API's messages that belong under a field (they start with its name). */
const FIELD_ERRORS = { channel: /^(channel |Channel )/, name: /^(name |A Teams destination)/, url: /^(url |Teams URL)/, apps: /^(apps |each of apps)/, branches: /^(branches |each of branches)/ };

/** A comma-separated field as the API takes it: null when empty (every app, every build). */
const listOf = (text: string) => {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : null;
};

/**
 * Slack and Microsoft Teams (docs/integrations.md "Slack and Microsoft Teams"), for Admins: Slack's
 * configuration (variable names and whether they are set, never a value; the Request URL to give
 * Slack), every destination with its apps and branches, and a form to add one.
 */
export function ChatSection() {
  const settings = useChatSettings();
  const [adding, setAdding] = useState(false);
  const slack = settings.data?.slack;
  return (
    <section id="chat" aria-labelledby="chat-title" className={styles.page}>
      <h2 id="chat-title">Chat: Slack and Microsoft Teams</h2>
      <p className={styles.muted}>
        New builds, verdicts, release-gate changes and device-test results, as one Slack message per build updated in place
        (with Approve, Request changes and Reject buttons) or as Teams cards.
      </p>
      {settings.isError && <FormError error={settings.error} />}
      {settings.data && (
        <p className={styles.muted}>
          {slack ? (
            <>
              Slack: bot token <code>{slack.bot_token_env}</code> {slack.has_bot_token ? 'set' : 'not set'}, signing secret{' '}
              <code>{slack.signing_secret_env}</code> {slack.has_signing_secret ? 'set' : 'not set'}. Request URL:{' '}
              {slack.request_url ? <code>{slack.request_url}</code> : 'needs the relay\u2019s public URL'}.
            </>
          ) : (
            <>Slack is not configured: add <code>chat.slack</code> to svc.config.json (bot token and signing secret from the environment).</>
          )}
        </p>
      )}
      {adding ? (
        <AddRouteForm onDone={() => setAdding(false)} />
      ) : (
        <div>
          <Button variant="primary" onClick={() => setAdding(true)}>
            New chat destination
          </Button>
        </div>
      )}
      {!!settings.data?.routes.length && (
        <ul className={styles.list}>
          {settings.data.routes.map((route) => (
            <RouteItem key={`${route.origin}-${route.kind}-${route.channel ?? route.name}`} route={route} />
          ))}
        </ul>
      )}
    </section>
  );
}

function RouteItem({ route }: { route: ChatRoute }) {
  const remove = useRemoveChatRoute();
  const name = chatRouteName(route);
  return (
    <li className={`${cardClass} ${styles.hook}`} aria-label={name}>
      <div className={styles.hookHead}>
        <code className={styles.url}>{name}</code>
        <span className={route.problem === null ? styles.enabled : styles.disabled}>{route.problem === null ? 'In use' : 'Not used'}</span>
      </div>
      <p className={styles.muted}>
        {route.origin === 'file' ? 'svc.config.json' : 'added here'} · apps: {route.apps?.join(', ') ?? 'all'} · branches:{' '}
        {route.branches?.join(', ') ?? 'all'}
        {route.problem !== null && ` · not used: ${route.problem}`}
      </p>
      {route.origin === 'dashboard' && (
        <div className={styles.actions}>
          <ConfirmDialog
            trigger={
              <Button size="small" aria-label={`Remove ${name}`}>
                Remove
              </Button>
            }
            title={`Remove ${name}?`}
            description={<p>It gets no more notices. Messages already posted stay.</p>}
            confirmLabel="Remove"
            onConfirm={() => remove.mutateAsync(route.id!)}
          />
        </div>
      )}
      <FormError error={remove.error} />
    </li>
  );
}

function AddRouteForm({ onDone }: { onDone: () => void }) {
  const add = useAddChatRoute();
  const [kind, setKind] = useState<'slack' | 'teams'>('slack');
  const [channel, setChannel] = useState('');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [apps, setApps] = useState('');
  const [branches, setBranches] = useState('');
  const { field, message } = splitError(add.error, FIELD_ERRORS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const audience = { apps: listOf(apps), branches: listOf(branches) };
    add.mutate(kind === 'slack' ? { kind, channel: channel.trim(), ...audience } : { kind, name: name.trim(), url: url.trim(), ...audience }, { onSuccess: onDone });
  };
  return (
    <form className={`${formClass} ${cardClass}`} onSubmit={submit} aria-label="New chat destination">
      <SelectField label="Where" value={kind} onChange={(e) => setKind(e.target.value as 'slack' | 'teams')}>
        <option value="slack">Slack channel</option>
        <option value="teams">Microsoft Teams webhook</option>
      </SelectField>
      {kind === 'slack' ? (
        <TextField label="Channel id" hint="In Slack: the channel's details, at the bottom (C0123ABCD). Invite the app to it." required value={channel} onChange={(e) => setChannel(e.target.value)} error={field === 'channel' ? message : null} />
      ) : (
        <>
          <TextField label="Name" hint="Lower-case letters, digits and dashes." required value={name} onChange={(e) => setName(e.target.value)} error={field === 'name' ? message : null} />
          <TextField label="Webhook URL" hint="A Workflows or incoming-webhook URL; kept encrypted, never shown again." type="url" required value={url} onChange={(e) => setUrl(e.target.value)} error={field === 'url' ? message : null} />
        </>
      )}
      <TextField label="Apps" hint="Bundle ids, comma-separated; empty: every app." value={apps} onChange={(e) => setApps(e.target.value)} error={field === 'apps' ? message : null} />
      <TextField label="Branches" hint="Comma-separated; empty: every build." value={branches} onChange={(e) => setBranches(e.target.value)} error={field === 'branches' ? message : null} />
      <FormEnd error={field ? null : add.error} pending={add.isPending} label="Add destination" pendingLabel="Adding…" />
      <div>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
