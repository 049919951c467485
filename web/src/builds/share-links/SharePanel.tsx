import { useState, type FormEvent } from 'react';
import type { Build, Schemas } from '../../api/client';
import { ReachableAddressNote } from '../../relay/ReachableAddressNote';
import { useReachableAddress } from '../../relay/queries';
import { Button } from '../../ui/Button';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { CopyField } from '../../ui/CopyField';
import { FormError, SelectField, TextField, cardClass } from '../../ui/Field';
import { Empty, Loading } from '../../ui/States';
import { absoluteTime, relativeTime } from '../../ui/format';
import { QrCode } from '../../ui/QrCode';
import { useCreateShareLink, useRevokeShareLink, useShareLinks, type NewShareLink } from './share-queries';
import sections from '../../ui/sections.module.css';
import styles from '../build-page.module.css';

type ShareLink = Schemas['ShareLink'];
const EXPIRY_DAYS = [1, 7, 14, 30, 90];

/**
 * Share links (docs/builds.md "Share links"): a link that opens an install page on a phone without
 * an account, optionally behind a password and a download limit. Writers create, copy again and
 * revoke them; everyone sees the list with its download counts.
 */
export function SharePanel({ build, writer }: { build: Build; writer: boolean }) {
  const links = useShareLinks(build.id);
  const create = useCreateShareLink(build.id);
  const [days, setDays] = useState(7);
  const [password, setPassword] = useState('');
  const [limit, setLimit] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: NewShareLink = { expires_in_days: days };
    if (password) body.password = password;
    if (limit) body.download_limit = Number(limit);
    create.mutate(body, { onSuccess: () => setPassword('') });
  };
  return (
    <section className={cardClass} aria-labelledby="share-title">
      <h2 id="share-title">Share</h2>
      <p className={styles.note}>A link anyone can open on a phone, without an account, to download this build until it expires.</p>
      {writer && (
        <form className={styles.shareForm} onSubmit={submit} aria-label="Create a share link">
          <SelectField label="Expires after" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {EXPIRY_DAYS.map((d) => (
              <option key={d} value={d}>
                {d === 1 ? '1 day' : `${d} days`}
              </option>
            ))}
          </SelectField>
          <TextField label="Password (optional)" type="password" autoComplete="new-password" maxLength={200} value={password} onChange={(e) => setPassword(e.target.value)} />
          <TextField
            label="Download limit (optional)"
            type="number"
            inputMode="numeric"
            min={1}
            max={10000}
            step={1}
            value={limit}
            onChange={(e) => setLimit(e.target.value)}
          />
          <Button type="submit" variant="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create share link'}
          </Button>
        </form>
      )}
      <FormError error={create.error} />
      {create.data && <CreatedLink link={create.data} />}
      {links.isPending ? (
        <Loading label="Loading share links…" />
      ) : links.isError ? (
        <FormError error={links.error} />
      ) : links.data.length === 0 ? (
        <Empty>No share links yet.</Empty>
      ) : (
        <ul className={styles.shareList} aria-label="Share links">
          {links.data.map((link) => (
            <ShareLinkRow key={link.id} buildId={build.id} link={link} writer={writer} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The link's address: the relay's public one, else the address a phone reaches this relay at. */
function useLinkUrl(link: ShareLink): { url: string | null; address: ReturnType<typeof useReachableAddress> } {
  const address = useReachableAddress();
  return { url: link.url ?? (link.path ? `${address.origin}${link.path}` : null), address };
}

function CreatedLink({ link }: { link: ShareLink }) {
  const { url, address } = useLinkUrl(link);
  if (!url) return null;
  return (
    <div className={styles.qr}>
      <div className={styles.wideField}>
        <CopyField label="Share link" value={url} />
      </div>
      {!link.url && <ReachableAddressNote address={address} link="share link" />}
      <QrCode value={url} label={`QR code of the share link ${url}`} size={144} />
      <p className={styles.note}>
        {link.resendable
          ? 'You can copy it again from the list below while it works.'
          : 'Shown only now: the relay keeps no copy of the link (SVC_SECRETS_KEY is not set).'}{' '}
        Expires {absoluteTime(link.expires_at)}.
      </p>
    </div>
  );
}

function ShareLinkRow({ buildId, link, writer }: { buildId: number; link: ShareLink; writer: boolean }) {
  const revoke = useRevokeShareLink(buildId);
  const { url } = useLinkUrl(link);
  const expired = Date.parse(link.expires_at) <= Date.now();
  const used = link.download_limit !== null && link.downloads >= link.download_limit;
  const live = !link.revoked && !expired && !used;
  const state = link.revoked
    ? 'revoked'
    : expired
      ? `expired ${relativeTime(link.expires_at)}`
      : used
        ? 'download limit reached'
        : `expires ${relativeTime(link.expires_at)}`;
  const downloads = `${link.downloads === 1 ? '1 download' : `${link.downloads} downloads`}${link.download_limit !== null ? ` of ${link.download_limit}` : ''}`;
  return (
    <li className={styles.shareItem}>
      <span>
        By {link.created_by}, {relativeTime(link.created_at)} · {state} · <strong>{downloads}</strong>
        {link.password && ' · password'}
      </span>
      {writer && live && (
        <ConfirmDialog
          trigger={
            <Button size="small" variant="danger">
              Revoke
            </Button>
          }
          title="Revoke this share link?"
          description={<p className={sections.muted}>Whoever has it can no longer open the install page or download the build.</p>}
          confirmLabel="Revoke link"
          onConfirm={() => revoke.mutateAsync(link.id)}
        />
      )}
      {writer && live && (
        <div className={styles.wideField}>
          {url ? (
            <CopyField label="Link" value={url} />
          ) : (
            <p className={sections.muted}>This link cannot be shown again (made before links were kept, or without SVC_SECRETS_KEY): revoke it and create a new one to send it again.</p>
          )}
        </div>
      )}
    </li>
  );
}
