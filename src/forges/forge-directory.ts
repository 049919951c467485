import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { ConfigFileForge } from '../config/forge-config';
import { RelayConfig } from '../config/relay-config';
import type { DestinationPolicy } from '../webhooks/destination/address-classifier';
import { DestinationGuard, parseWebhookUrl } from '../webhooks/destination/destination-guard';
import { redactSecrets } from '../logging/mask-secrets';
import { ForgeClient, ForgeHttp, forgeLabel } from './clients/forge-client';
import { GiteaForgeClient } from './clients/gitea-client';
import { GitHubForgeClient } from './clients/github-client';
import { GitLabForgeClient } from './clients/gitlab-client';
import { pinnedFetch } from '../outbox/pinned-fetch';
import { openDashboardForge } from './settings/dashboard-forge';
import { DashboardForgesRepository } from './settings/dashboard-forges.repository';

/** How long one forge request may take, DNS to last byte. */
export const FORGE_REQUEST_TIMEOUT_MS = 10_000;

/** svc.config.json (the operator's) or the dashboard (an Admin's, kept in the database). */
export type ForgeSource = 'config' | 'dashboard';

/** A forge as the relay judged it: at start-up for svc.config.json, at start-up and on every change for the dashboard's. */
export interface ConfiguredForge {
  /** `config:<index>` or `dashboard:<id>`: names the forge in its delivery log. */
  key: string;
  source: ForgeSource;
  /** Position in svc.config.json `forges` (config), or the database id (dashboard). */
  index: number;
  forge: ConfigFileForge;
  label: string;
  /** Whether a token / an App key was given (a dashboard forge's may be set yet unreadable). */
  hasToken: boolean;
  hasPrivateKey: boolean;
  /** Why it is never used (an unset variable, an unreadable sealed secret, an unusable URL); null when in use. */
  problem: string | null;
  client: ForgeClient | null;
}

/**
 * Every forge the relay posts to: those of svc.config.json (`forges`), then those added in the
 * dashboard (table `forges`, secrets sealed with SVC_SECRETS_KEY). One whose token (or App key) is
 * missing or unreadable, or whose URL is not an http(s) URL, is reported with a warning and never
 * used; the relay keeps serving. Which forge serves a build is read from its `repository`: the
 * first forge listing it, file forges first. A dashboard forge's requests follow the webhooks' rule
 * for API-registered destinations (LAN yes, this host no); a file forge's the operator's.
 */
@Injectable()
export class ForgeDirectory implements OnModuleInit {
  private readonly logger = new Logger('Forges');
  private readonly fromFile: ConfiguredForge[];
  private fromDashboard: ConfiguredForge[] = [];
  /** Reloads overlap (a change's own, and the event's on every instance): an older read never replaces a newer one. */
  private reloadsStarted = 0;
  private reloadApplied = 0;
  private readonly fetchFor: Record<DestinationPolicy, typeof fetch>;
  /** Every forge's answer is redacted of every forge's credentials: read at each use, so a forge added in the dashboard counts at once. */
  private readonly redact = (text: string): string => redactSecrets(text, this.credentials());

  constructor(
    config: RelayConfig,
    guard: DestinationGuard,
    private readonly rows: DashboardForgesRepository,
    private readonly box: SecretBox,
  ) {
    this.fetchFor = { operator: pinnedFetch(guard, FORGE_REQUEST_TIMEOUT_MS, 'operator'), api: pinnedFetch(guard, FORGE_REQUEST_TIMEOUT_MS, 'api') };
    this.fromFile = config.forges.map((forge, index) => this.judge('config', index, forge, problemOf(forge), { hasToken: !!forge.token, hasPrivateKey: !!forge.app?.privateKey }));
  }

  /** Before any onApplicationBootstrap: the feed and the sender start knowing every forge. */
  async onModuleInit(): Promise<void> {
    for (const entry of this.fromFile) {
      if (entry.problem) this.logger.warn(`svc.config.json forges[${entry.index}] (${entry.label}) is not used: ${entry.problem}`);
    }
    await this.reload();
  }

  /** Reads the dashboard's forges again (after a change on this or another instance); a failed read keeps the previous list. */
  async reload(): Promise<void> {
    const reload = ++this.reloadsStarted;
    try {
      const rows = await this.rows.all();
      if (reload < this.reloadApplied) return;
      this.reloadApplied = reload;
      this.fromDashboard = rows.map((row) => {
        const opened = openDashboardForge(row, this.box);
        const problem = opened.problem ?? urlProblem(opened.forge.url);
        const entry = this.judge('dashboard', row.forge.id, opened.forge, problem, { hasToken: !!row.forge.tokenSealed, hasPrivateKey: !!row.forge.privateKeySealed });
        if (problem) this.logger.warn(`Dashboard forge #${row.forge.id} (${entry.label}) is not used: ${problem}`);
        return entry;
      });
    } catch (err) {
      this.logger.error(`Could not read the dashboard's forges: ${(err as Error)?.stack ?? err}`);
    }
  }

  /** Whether any forge is configured at all (nothing runs without one). */
  get any(): boolean {
    return this.fromFile.length + this.fromDashboard.length > 0;
  }

  all(): readonly ConfiguredForge[] {
    return [...this.fromFile, ...this.fromDashboard];
  }

  /** The svc.config.json forge at `index`, or a dashboard forge by id. */
  find(source: ForgeSource, index: number): ConfiguredForge | null {
    return (source === 'config' ? this.fromFile : this.fromDashboard).find((entry) => entry.index === index) ?? null;
  }

  /** The forge that serves this repository (case-insensitive, as forges treat names), or null. */
  forRepository(repository: string): ConfiguredForge | null {
    const wanted = repository.toLowerCase();
    return this.all().find((entry) => entry.forge.repositories.some((r) => r.toLowerCase() === wanted)) ?? null;
  }

  /** The configured tokens and App keys of every forge. */
  private credentials(): (string | null)[] {
    return this.all().flatMap((entry) => [entry.forge.token, entry.forge.app?.privateKey ?? null]);
  }

  private judge(source: ForgeSource, index: number, forge: ConfigFileForge, problem: string | null, secrets: Pick<ConfiguredForge, 'hasToken' | 'hasPrivateKey'>): ConfiguredForge {
    const http: ForgeHttp = { fetch: this.fetchFor[source === 'config' ? 'operator' : 'api'], redact: this.redact };
    return { key: `${source}:${index}`, source, index, forge, label: forgeLabel(forge), ...secrets, problem, client: problem ? null : clientFor(forge, http) };
  }
}

function urlProblem(url: string): string | null {
  try {
    parseWebhookUrl(url);
    return null;
  } catch (err) {
    return `its url is not usable (${(err as Error).message})`;
  }
}

function problemOf(forge: ConfigFileForge): string | null {
  const url = urlProblem(forge.url);
  if (url) return url;
  if (forge.app) return forge.app.privateKey ? null : `the environment variable ${forge.app.privateKeyEnv} (the App's private key) is not set`;
  return forge.token ? null : `the environment variable ${forge.tokenEnv} (its token) is not set`;
}

function clientFor(forge: ConfigFileForge, http: ForgeHttp): ForgeClient {
  switch (forge.type) {
    case 'github':
      return new GitHubForgeClient(forge, http);
    case 'gitlab':
      return new GitLabForgeClient(forge, http);
    case 'gitea':
      return new GiteaForgeClient(forge, http);
  }
}
