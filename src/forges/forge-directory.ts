import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigFileForge } from '../config/forge-config';
import { RelayConfig } from '../config/relay-config';
import { DestinationGuard, parseWebhookUrl } from '../webhooks/destination/destination-guard';
import { ForgeClient, forgeLabel } from './clients/forge-client';
import { GiteaForgeClient } from './clients/gitea-client';
import { GitHubForgeClient } from './clients/github-client';
import { GitLabForgeClient } from './clients/gitlab-client';
import { pinnedFetch } from './clients/pinned-fetch';

/** How long one forge request may take, DNS to last byte. */
export const FORGE_REQUEST_TIMEOUT_MS = 10_000;

/** A svc.config.json forge as the relay judged it at start-up. */
export interface ConfiguredForge {
  index: number;
  forge: ConfigFileForge;
  label: string;
  /** Why it is never used (an unset token or key variable, an unusable URL); null when in use. */
  problem: string | null;
  client: ForgeClient | null;
}

/**
 * The forges of svc.config.json (`forges`), judged once at start-up: one whose token (or App key)
 * variable is unset, or whose URL is not an http(s) URL, is reported with a warning and never
 * used. Which forge serves a build is read from its `repository` (the first forge listing it).
 */
@Injectable()
export class ForgeDirectory implements OnApplicationBootstrap {
  private readonly logger = new Logger('Forges');
  private readonly forges: ConfiguredForge[];

  constructor(config: RelayConfig, guard: DestinationGuard) {
    const fetchImpl = pinnedFetch(guard, FORGE_REQUEST_TIMEOUT_MS);
    this.forges = config.forges.map((forge, index) => {
      const problem = problemOf(forge);
      return { index, forge, label: forgeLabel(forge), problem, client: problem ? null : clientFor(forge, fetchImpl) };
    });
  }

  onApplicationBootstrap(): void {
    for (const entry of this.forges) {
      if (entry.problem) this.logger.warn(`svc.config.json forges[${entry.index}] (${entry.label}) is not used: ${entry.problem}`);
    }
  }

  /** Whether any forge is configured at all (nothing runs without one). */
  get any(): boolean {
    return this.forges.length > 0;
  }

  all(): readonly ConfiguredForge[] {
    return this.forges;
  }

  /** The forge that serves this repository (case-insensitive, as forges treat names), or null. */
  forRepository(repository: string): ConfiguredForge | null {
    const wanted = repository.toLowerCase();
    return this.forges.find((entry) => entry.forge.repositories.some((r) => r.toLowerCase() === wanted)) ?? null;
  }
}

function problemOf(forge: ConfigFileForge): string | null {
  try {
    parseWebhookUrl(forge.url);
  } catch (err) {
    return `its url is not usable (${(err as Error).message})`;
  }
  if (forge.app) return forge.app.privateKey ? null : `the environment variable ${forge.app.privateKeyEnv} (the App's private key) is not set`;
  return forge.token ? null : `the environment variable ${forge.tokenEnv} (its token) is not set`;
}

function clientFor(forge: ConfigFileForge, fetchImpl: typeof fetch): ForgeClient {
  switch (forge.type) {
    case 'github':
      return new GitHubForgeClient(forge, fetchImpl);
    case 'gitlab':
      return new GitLabForgeClient(forge, fetchImpl);
    case 'gitea':
      return new GiteaForgeClient(forge, fetchImpl);
  }
}
