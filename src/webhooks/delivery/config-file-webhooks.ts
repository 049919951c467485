import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { isIP } from 'node:net';
import { RelayConfig } from '../../config/relay-config';
import { classifyAddress, classifyHostname } from '../destination/address-classifier';
import { DestinationGuard, DestinationRefused, parseWebhookUrl } from '../destination/destination-guard';

/** A svc.config.json endpoint that passed the start-up checks. */
export interface ConfigFileEndpoint {
  /** `svc.config.json webhooks[0] (host:port)`: names it in logs without its path or query (they may hold tokens). */
  label: string;
  url: string;
  secret: string | null;
}

/**
 * Endpoints from svc.config.json (`webhooks`), checked once at start-up. The operator owns that
 * file, so its endpoints may point at this host (loopback, a bot beside the relay) but never at a
 * cloud metadata service or a special-purpose range. An endpoint that breaks those rules, or
 * names an unset secret variable, is reported with a warning naming it and is never sent to
 * (never sent unsigned). Deliveries re-check every attempt with the same operator rule.
 */
@Injectable()
export class ConfigFileWebhooks implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');
  private usable: ConfigFileEndpoint[] = [];

  constructor(
    private readonly config: RelayConfig,
    private readonly guard: DestinationGuard,
  ) {}

  /** The enabled endpoints that passed the start-up checks. */
  endpoints(): readonly ConfigFileEndpoint[] {
    return this.usable;
  }

  onApplicationBootstrap(): void {
    this.usable = [];
    this.config.webhooks.forEach((hook, index) => {
      const name = `svc.config.json webhooks[${index}]`;
      if (!hook.enabled) return;
      let label = name;
      try {
        const url = parseWebhookUrl(hook.url);
        label = `${name} (${url.host})`;
        const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
        const refusal = isIP(host) ? classifyAddress(host, 'operator') : classifyHostname(host.replace(/\.$/, ''), 'operator');
        if (refusal) throw new DestinationRefused(`${host} is ${refusal}`);
      } catch (err) {
        const reason = err instanceof DestinationRefused ? err.reason : String(err);
        this.logger.warn(`${label} is not used: ${reason}`);
        return;
      }
      if (hook.secretEnv && !hook.secret) {
        this.logger.warn(`${label} is not used: environment variable ${hook.secretEnv} (its secretEnv) is not set`);
        return;
      }
      if (!hook.secretEnv) this.logger.warn(`${label} has no secretEnv: its deliveries are not signed`);
      this.usable.push({ label, url: hook.url, secret: hook.secret });
      // Names are resolved in the background: a warning now; each delivery checks again.
      void this.guard.vet(hook.url, 'operator').catch((err) => {
        if (err instanceof DestinationRefused) this.logger.warn(`${label}: ${err.reason}; deliveries will be refused while this holds`);
      });
    });
  }
}
