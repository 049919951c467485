import { useState, type FormEvent } from 'react';
import type { Schemas } from '../api/client';
import { absoluteTime, relativeTime } from '../ui/format';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormEnd, FormError, TextField, cardClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { Empty, Loading } from '../ui/States';
import { TokenShownOnce } from '../ui/TokenShownOnce';
import { useCreateScimToken, useRevokeScimToken, useScimTokens } from './queries';
import styles from '../ui/sections.module.css';

/**
 * SCIM provisioning tokens (docs/identity.md "SCIM"), for an Admin: the identity provider uses one as
 * the bearer token of `<relay>/scim/v2` to create, change, deactivate and delete members.
 */
export function ScimTokensSection() {
  const tokens = useScimTokens();
  const create = useCreateScimToken();
  const [name, setName] = useState('');
  const { field, message } = splitError(create.error, { name: /^name\b/i });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim() }, { onSuccess: () => setName('') });
  };
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>SCIM provisioning</h2>
      <p className={styles.lead}>
        Your identity provider (Okta, Entra ID, …) keeps members in step through SCIM 2.0 at <code>{`${window.location.origin}/scim/v2`}</code>,
        with a token from here. Deactivating a member there ends all their sessions here at once.
      </p>
      <form className={styles.section} onSubmit={submit} noValidate aria-label="New SCIM token">
        <TextField label="Token name" value={name} onChange={(e) => setName(e.target.value)} error={field === 'name' ? message : null} placeholder="Okta" />
        <FormEnd error={field === null ? create.error : null} pending={create.isPending} label="Create SCIM token" pendingLabel="Creating…" />
      </form>
      {create.data && <TokenShownOnce area="New SCIM token value" label="SCIM token" value={create.data.token} onDone={() => create.reset()} />}
      {tokens.isPending ? (
        <Loading label="Loading SCIM tokens…" />
      ) : tokens.isError ? (
        <FormError error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <Empty>No SCIM tokens.</Empty>
      ) : (
        <ul className={styles.list} aria-label="SCIM tokens">
          {tokens.data.map((token) => (
            <ScimTokenRow key={token.id} token={token} />
          ))}
        </ul>
      )}
    </div>
  );
}

function ScimTokenRow({ token }: { token: Schemas['ScimTokenListItem'] }) {
  const revoke = useRevokeScimToken();
  return (
    <li className={styles.row} aria-label={token.name}>
      <div className={styles.rowMain}>
        <strong>{token.name}</strong>
        <span className={styles.meta}>
          created {relativeTime(token.created_at)} ·{' '}
          {token.last_used_at ? (
            <>
              last used <time dateTime={token.last_used_at} title={absoluteTime(token.last_used_at)}>{relativeTime(token.last_used_at)}</time>
            </>
          ) : (
            'never used'
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
        description={<p>The identity provider is refused from its next request on, until it is given a new token.</p>}
        confirmLabel="Revoke token"
        onConfirm={() => revoke.mutateAsync(token.id)}
      />
    </li>
  );
}
