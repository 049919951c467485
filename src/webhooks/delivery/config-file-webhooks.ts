import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { isIP } from 'node:net';
import { notFound } from '../../common/errors/http-error';
import { RelayConfig } from '../../config/relay-config';
import { classifyAddress, classifyHostname } from '../destination/address-classifier';
import { DestinationGuard, DestinationRefused, parseWebhookUrl } from '../destination/destination-guard';
import { WEBHOOK_NOT_FOUND } from '../webhooks.service';
import { ConfigFileDeliveryLog } from './config-file-delivery-log';
import type { AttemptRecord } from './delivery-log.repository';

/** One svc.config.json `webhooks` entry as the relay judged it at start-up. */
export interface ConfigFileEntry {
  /** Its position in the file: what names it (`config-<index>` in the API, `webhooks[<index>]` in logs). */
  index: number;
  /** `svc.config.json webhooks[0] (host:port)`: names it in logs without its path or query (they may hold tokens). */
  label: string;
  url: string;
  secret: string | null;
  enabled: boolean;
  /** Why it is never sent to (disabled, refused destination, unset secret variable); null when in use. */
  problem: string | null;
}

/** A svc.config.json endpoint that passed the start-up checks. */
export type ConfigFileEndpoint = ConfigFileEntry & { problem: null };

export const DISABLED_IN_FILE = 'disabled in svc.config.json';

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
  private judged: ConfigFileEntry[] = [];

  constructor(
    private readonly config: RelayConfig,
    private readonly guard: DestinationGuard,
    private readonly log: ConfigFileDeliveryLog,
  ) {}

  /** Every entry of the file, in its order, used or not (the Webhooks page shows them read-only). */
  entries(): readonly ConfigFileEntry[] {
    return this.judged;
  }

  /** The entry at this position of the file; 404 `Webhook not found` past its end. */
  entry(index: number): ConfigFileEntry {
    const entry = this.judged[index];
    if (!entry) throw notFound(WEBHOOK_NOT_FOUND);
    return entry;
  }

  /** The newest attempts this instance made to the entry, newest first. */
  deliveries(index: number): AttemptRecord[] {
    return this.log.latest(this.entry(index).index);
  }

  /** The enabled endpoints that passed the start-up checks. */
  endpoints(): ConfigFileEndpoint[] {
    return this.judged.filter((entry): entry is ConfigFileEndpoint => entry.problem === null);
  }

  onApplicationBootstrap(): void {
    this.judged = this.config.webhooks.map((hook, index) => {
      const { label, problem } = this.judge(hook, index);
      return { index, label, url: hook.url, secret: hook.secret, enabled: hook.enabled, problem };
    });
  }

  private judge(hook: RelayConfig['webhooks'][number], index: number): { label: string; problem: string | null } {
    const name = `svc.config.json webhooks[${index}]`;
    if (!hook.enabled) return { label: name, problem: DISABLED_IN_FILE };
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
      return { label, problem: reason };
    }
    if (hook.secretEnv && !hook.secret) {
      const problem = `environment variable ${hook.secretEnv} (its secretEnv) is not set`;
      this.logger.warn(`${label} is not used: ${problem}`);
      return { label, problem };
    }
    if (!hook.secretEnv) this.logger.warn(`${label} has no secretEnv: its deliveries are not signed`);
    // Names are resolved in the background: a warning now; each delivery checks again.
    void this.guard.vet(hook.url, 'operator').catch((err) => {
      if (err instanceof DestinationRefused) this.logger.warn(`${label}: ${err.reason}; deliveries will be refused while this holds`);
    });
    return { label, problem: null };
  }
}
