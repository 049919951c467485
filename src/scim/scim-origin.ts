import type { Request } from 'express';
import type { RelayConfig } from '../config/relay-config';

/** The relay's URL for `meta.location`: the configured one, else the origin the request came to. */
export function scimBaseUrl(config: RelayConfig, req: Request): string {
  return config.relayUrl ?? `${req.protocol}://${req.get('host')}`;
}
