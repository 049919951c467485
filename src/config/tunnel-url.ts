import { Injectable } from '@nestjs/common';
import { RelayConfig } from './relay-config';

/**
 * The public URL of the tunnel `svc relay --tunnel` started: known only after the relay is up, and
 * it changes when the tunnel stops. Held here so RelayConfig stays exactly as loaded and validated
 * at boot; starts from `SVC_TUNNEL_URL` / `relay.tunnelUrl`. Read on every use (links, Origin rule).
 */
@Injectable()
export class TunnelUrl {
  private url: string | null;

  constructor(config: RelayConfig) {
    this.url = config.tunnelUrl;
  }

  current(): string | null {
    return this.url;
  }

  /** Set by the CLI once the tunnel reports its address, and again when it stops. */
  set(url: string | null): void {
    this.url = url;
  }
}
