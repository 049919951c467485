import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `relay.json` in the data folder while a relay runs on it: how `svc admin init` tells which folder a running relay uses. */
export const RELAY_PRESENCE_FILE = 'relay.json';

export interface RelayPresence {
  pid: number;
  port: number;
  host: string;
  startedAt: string;
}

/**
 * Writes the data folder's relay.json (0600, like every file there). It holds nothing secret: the
 * process id and the address the relay listens on, for operator commands on the same machine.
 */
export function announceRelay(dataDir: string, presence: RelayPresence): void {
  writeFileSync(join(dataDir, RELAY_PRESENCE_FILE), `${JSON.stringify(presence)}\n`, { mode: 0o600 });
}

/** Removes relay.json when it still names this process (another relay may have started on the folder since). */
export function withdrawRelay(dataDir: string, pid = process.pid): void {
  if (readRelayPresence(dataDir)?.pid === pid) rmSync(join(dataDir, RELAY_PRESENCE_FILE), { force: true });
}

export function readRelayPresence(dataDir: string): RelayPresence | null {
  try {
    const value = JSON.parse(readFileSync(join(dataDir, RELAY_PRESENCE_FILE), 'utf8'));
    return Number.isInteger(value?.pid) && Number.isInteger(value?.port) ? value : null;
  } catch {
    return null;
  }
}

/** relay.json names a process that is alive (a crash leaves the file behind, naming a dead one). */
export function liveRelayPresence(dataDir: string): RelayPresence | null {
  const presence = readRelayPresence(dataDir);
  if (!presence) return null;
  try {
    process.kill(presence.pid, 0);
    return presence;
  } catch (err) {
    // EPERM: alive, owned by another user (the relay's service account).
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? presence : null;
  }
}
