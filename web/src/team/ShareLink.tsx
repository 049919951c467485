import { QrCode } from '../ui/QrCode';
import { CopyField } from '../ui/CopyField';
import { ReachableAddressNote } from '../relay/ReachableAddressNote';
import { useReachableAddress } from '../relay/queries';
import styles from '../ui/sections.module.css';

interface ShareLinkProps {
  label: string;
  /** The relay's own link (inviteUrl / resetUrl), or null when it knows no address a teammate can open. */
  url: string | null;
  page: '/invite' | '/reset-password';
  token: string;
  /** What was e-mailed, or null when nothing was. */
  sent: string | null;
  validity: string;
}

/** An invitation or reset link shown once: copy it, scan it, and whether an e-mail went out. */
export function ShareLink({ label, url, page, token, sent, validity }: ShareLinkProps) {
  const address = useReachableAddress();
  // spec §4: without the relay's own link, it is `<relay-url>/<page>?token=…`.
  const link = url ?? `${address.origin}${page}?token=${token}`;
  return (
    <div className={styles.share}>
      <div>
        <CopyField label={label} value={link} />
        <p className={styles.muted} role="status">
          {sent ?? 'No e-mail was sent (no address given, or the relay has no SMTP): share the link yourself.'} {validity}
        </p>
        {!url && <ReachableAddressNote address={address} link="link" />}
      </div>
      <QrCode value={link} label={`QR code of the ${label.toLowerCase()}`} size={144} />
    </div>
  );
}
