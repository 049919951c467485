import { useState, type FormEvent } from 'react';
import type { Build, Schemas } from '../api/client';
import { ReachableAddressNote } from '../relay/ReachableAddressNote';
import { useReachableAddress } from '../relay/queries';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyField } from '../ui/CopyField';
import { FormError, SelectField, cardClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { absoluteTime, relativeTime } from './format';
import { QrCode } from './QrCode';
import { useCreateShareLink, useRevokeShareLink, useShareLinks } from './share-queries';
import sections from '../ui/sections.module.css';
import styles from './build-page.module.css';

type ShareLink = Schemas['ShareLink'];
const EXPIRY_DAYS = [1, 7, 14, 30, 90];

/**
 * Share links (docs/builds.md "Share links"): a link that opens an install page on a phone without
 * an account. Writers create and revoke them; everyone sees the list with its download counts.
 */
export function SharePanel({ build, writer }: { build: Build; writer: boolean }) {
  const links = useShareLinks(build.id);
  const create = useCreateShareLink(build.id);
  const [days, setDays] = useState(7);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(days);
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

function CreatedLink({ link }: { link: ShareLink }) {
  const address = useReachableAddress();
  const url = link.url ?? `${address.origin}${link.path ?? ''}`;
  return (
    <div className={styles.qr}>
      <CopyField label="Share link" value={url} />
      {!link.url && <ReachableAddressNote address={address} link="share link" />}
      <QrCode value={url} label={`QR code of the share link ${url}`} size={144} />
      <p className={styles.note}>Shown only now: the relay keeps only a fingerprint of the link. Expires {absoluteTime(link.expires_at)}.</p>
    </div>
  );
}

function ShareLinkRow({ buildId, link, writer }: { buildId: number; link: ShareLink; writer: boolean }) {
  const revoke = useRevokeShareLink(buildId);
  const expired = Date.parse(link.expires_at) <= Date.now();
  const state = link.revoked ? 'revoked' : expired ? `expired ${relativeTime(link.expires_at)}` : `expires ${relativeTime(link.expires_at)}`;
  return (
    <li className={styles.shareItem}>
      <span>
        By {link.created_by}, {relativeTime(link.created_at)} · {state} ·{' '}
        <strong>{link.downloads === 1 ? '1 download' : `${link.downloads} downloads`}</strong>
      </span>
      {writer && !link.revoked && !expired && (
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
    </li>
  );
}
