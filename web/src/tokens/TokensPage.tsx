import { useState, type FormEvent } from 'react';
import type { Schemas } from '../api/client';
import { useCurrentMember } from '../app/RequireAuth';
import { absoluteTime, relativeTime } from '../ui/format';
import { useReachableOrigin } from '../relay/queries';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyField } from '../ui/CopyField';
import { FormEnd, FormError, TextField, cardClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { Empty, Loading } from '../ui/States';
import { TokenShownOnce } from '../ui/TokenShownOnce';
import { ciSnippet, expiryError, MAX_EXPIRY_DAYS, SCOPES, type Scope } from './expiry';
import { useCreateToken, useRevokeToken, useTokens } from './queries';
import styles from '../ui/sections.module.css';

const SCOPE_TEXT: Record<Scope, string> = {
  view: 'view: apps, device screens and UI trees, uploaded files',
  'builds:write': 'builds:write: upload and read builds, comment, webhooks',
  agent: 'agent: connect a device host (svc agent)',
  devices: 'devices: run Appium tests on the team’s devices (WebDriver hub)',
};

export function TokensPage() {
  return (
    <section className={styles.page} aria-labelledby="tokens-title">
      <h1 id="tokens-title">Access tokens</h1>
      <p className={styles.lead}>
        Personal access tokens let CI and scripts act as you, with your current role and the scopes you give them.
      </p>
      <CreateToken />
      <TokenList />
    </section>
  );
}

function CreateToken() {
  const me = useCurrentMember();
  const create = useCreateToken();
  const origin = useReachableOrigin();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['view', 'builds:write']);
  const [days, setDays] = useState('90');
  const [noExpiry, setNoExpiry] = useState(false);
  const [localError, setLocalError] = useState<{ field: string; message: string } | null>(null);
  const [issued, setIssued] = useState<Scope[]>([]);
  const api = splitError(create.error, { name: /^name\b/i, expires: /^expires_in_days\b/i, scope: /scope/i });
  const field = localError?.field ?? api.field;
  const message = localError?.message ?? api.message;
  const toggle = (scope: Scope, on: boolean) => setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.reset();
    const problem = !name.trim()
      ? { field: 'name', message: 'Give the token a name, e.g. where it is used.' }
      : scopes.length === 0
        ? { field: 'scope', message: 'Choose at least one scope.' }
        : !noExpiry && expiryError(days)
          ? { field: 'expires', message: expiryError(days)! }
          : null;
    setLocalError(problem);
    if (problem) return;
    const chosen = SCOPES.filter((s) => scopes.includes(s));
    create.mutate(
      { name: name.trim(), scope: chosen.join(','), ...(noExpiry ? {} : { expires_in_days: Number(days) }) },
      {
        onSuccess: () => {
          setIssued(chosen);
          setName('');
        },
      },
    );
  };
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>New token</h2>
      <form className={styles.section} onSubmit={submit} noValidate aria-label="New token">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={field === 'name' ? message : null} placeholder="GitHub Actions" />
        <fieldset className={styles.checks} aria-describedby={field === 'scope' ? 'token-scope-error' : undefined}>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => {
            const refused = (scope === 'agent' && me.role !== 'Admin') || (scope === 'devices' && me.role === 'Viewer');
            return (
              <label key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  disabled={refused}
                  onChange={(e) => toggle(scope, e.target.checked)}
                />{' '}
                {SCOPE_TEXT[scope]}
                {refused && <span className={styles.meta}>{scope === 'agent' ? ' (only an Admin can issue it)' : ' (Viewers cannot hold it)'}</span>}
              </label>
            );
          })}
          {field === 'scope' && (
            <p id="token-scope-error" role="alert" className={styles.error}>
              {message}
            </p>
          )}
        </fieldset>
        <div className={styles.inline}>
          <TextField
            label="Expires in (days)"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_EXPIRY_DAYS}
            value={days}
            disabled={noExpiry}
            onChange={(e) => setDays(e.target.value)}
            error={field === 'expires' ? message : null}
            hint="1 to 365 days."
          />
          <label className={styles.checkInline}>
            <input type="checkbox" checked={noExpiry} onChange={(e) => setNoExpiry(e.target.checked)} /> No expiry
          </label>
        </div>
        <FormEnd error={field === null ? create.error : null} pending={create.isPending} label="Create token" pendingLabel="Creating…" />
      </form>
      {create.data && (
        <TokenShownOnce area="New token value" label="Token" value={create.data.token} onDone={() => create.reset()}>
          <CopyField label="CI snippet" value={ciSnippet(origin, create.data.token, issued)} multiline />
        </TokenShownOnce>
      )}
    </div>
  );
}

function TokenList() {
  const tokens = useTokens();
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>Your tokens</h2>
      {tokens.isPending ? (
        <Loading label="Loading tokens…" />
      ) : tokens.isError ? (
        <FormError error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <Empty>No tokens yet.</Empty>
      ) : (
        <ul className={styles.list} aria-label="Your tokens">
          {tokens.data.map((token) => (
            <TokenRow key={token.id} token={token} />
          ))}
        </ul>
      )}
    </div>
  );
}

function TokenRow({ token }: { token: Schemas['TokenListItem'] }) {
  const revoke = useRevokeToken();
  const used = token.last_used_at !== token.created_at;
  const expired = token.expires_at !== null && Date.parse(token.expires_at) <= Date.now();
  return (
    <li className={styles.row} aria-label={token.name}>
      <div className={styles.rowMain}>
        <strong>{token.name}</strong>
        <span className={styles.meta}>
          {token.scope.split(',').join(', ')} · created {relativeTime(token.created_at)}
        </span>
        <span className={styles.meta}>
          {used ? (
            <>
              Last used <time dateTime={token.last_used_at} title={absoluteTime(token.last_used_at)}>{relativeTime(token.last_used_at)}</time>
            </>
          ) : (
            'Never used'
          )}{' '}
          ·{' '}
          {token.expires_at === null ? (
            'never expires'
          ) : (
            <time dateTime={token.expires_at} title={absoluteTime(token.expires_at)}>
              {expired ? 'expired' : 'expires'} {relativeTime(token.expires_at)}
            </time>
          )}
        </span>
      </div>
      <ConfirmDialog
        trigger={
          <Button size="small" aria-label={`Revoke ${token.name}`}>
            Revoke
          </Button>
        }
        title={`Revoke ${token.name}?`}
        description={<p>Anything using this token (CI jobs, scripts, agents) is refused from the next request on. It cannot be undone.</p>}
        confirmLabel="Revoke token"
        onConfirm={() => revoke.mutateAsync(token.id)}
      />
    </li>
  );
}
