import { Injectable } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { isLoopback, normalizeIp } from '../common/net/ip-address';
import { RelayConfig } from '../config/relay-config';
import { PublicUrlService } from './public-url.service';
import type { RelayHostDetails } from './relay.mapper';

export const AGENT_CONNECT_PATH = '/api/v1/agent/connect';

/** Where this relay can be reached from the LAN and from outside. */
@Injectable()
export class RelayHostDetailsService {
  /** The port actually bound (differs from config when SVC_PORT=0). */
  private listeningPort: number | null = null;
  /** Read once: whether the process runs in a container does not change while it runs. */
  private readonly inContainer = runningInContainer();

  constructor(
    private readonly config: RelayConfig,
    private readonly publicUrl: PublicUrlService,
  ) {}

  setListeningPort(port: number): void {
    this.listeningPort = port;
  }

  details(): RelayHostDetails {
    const port = this.listeningPort ?? this.config.port;
    // The same rule as the start-up summary: a relay bound to loopback has no LAN address, whatever its interfaces.
    const lanHost = this.lanAddress().address;
    const publicBaseUrl = this.publicUrl.publicBaseUrl();
    const scheme = this.publicUrl.servesHttps ? 'wss' : 'ws';
    const agentRelayUrl = publicBaseUrl
      ? publicBaseUrl.replace(/^http/, 'ws') + AGENT_CONNECT_PATH
      : lanHost
        ? `${scheme}://${lanHost}:${port}${AGENT_CONNECT_PATH}`
        : null;
    return { lanHost, port, publicBaseUrl, agentRelayUrl };
  }

  /**
   * The LAN address others on the network can open, or why there is none: the start-up summary says
   * which. A relay bound to a loopback address is not on the LAN whatever its interfaces are.
   */
  lanAddress(): { address: string; reason: null } | { address: null; reason: string } {
    const host = this.config.host;
    if (host === 'localhost' || isLoopback(normalizeIp(host))) return { address: null, reason: `bound to ${host}` };
    if (this.inContainer) return { address: null, reason: 'runs in a container' };
    const address = firstLanAddress();
    return address ? { address, reason: null } : { address: null, reason: 'no LAN interface' };
  }
}

/** First private/global IPv4 address of a non-internal interface. */
function firstLanAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.family === 'IPv4' && !entry.internal) return entry.address;
    }
  }
  return null;
}

/** Docker, Podman and Kubernetes leave these marks; inside them the LAN address is the bridge's, not the host's. */
export function runningInContainer(): boolean {
  if (process.env.SVC_IN_CONTAINER === '1' || existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
  try {
    return /docker|kubepods|containerd|libpod/.test(readFileSync('/proc/1/cgroup', 'utf8'));
  } catch {
    return false;
  }
}
