import type { ReachableAddress } from './queries';
import styles from '../ui/sections.module.css';

/**
 * What a link shown for another device is worth when the relay knows no public address: a warning
 * when only this computer can open it (loopback), else a note naming the address it uses. Shared
 * by the invitation and reset links and the build page's download and share links.
 */
export function ReachableAddressNote({ address, link }: { address: ReachableAddress; link: string }) {
  if (address.source === 'public') return null;
  if (!address.othersCanOpen) {
    return (
      <p className={styles.warning} role="alert">
        Only an address of this computer is known ({address.origin}): a phone or a teammate cannot open this {link}. Set{' '}
        <code>SVC_RELAY_URL</code> to the address they reach the relay at, or start it with <code>svc relay --tunnel</code>.
      </p>
    );
  }
  return (
    <p className={styles.muted}>
      The relay knows no public address, so this {link} uses {address.source === 'lan' ? 'its LAN address' : 'the address this dashboard is reached at'}
      ; set <code>SVC_RELAY_URL</code> if teammates reach the relay elsewhere.
    </p>
  );
}
