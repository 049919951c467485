import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import type { ConfigFileTracker } from '../config/tracker-config';
import { pinnedFetch } from '../outbox/pinned-fetch';
import { redactSecrets } from '../logging/mask-secrets';
import { DestinationGuard, parseWebhookUrl } from '../webhooks/destination/destination-guard';
import { GitHubIssuesClient } from './clients/github-issues-client';
import { JiraTrackerClient } from './clients/jira-client';
import { LinearTrackerClient } from './clients/linear-client';
import type { TrackerClient, TrackerHttp } from './clients/tracker-client';

/** One tracker request, DNS to last byte (an attachment upload included). */
export const TRACKER_REQUEST_TIMEOUT_MS = 60_000;

/** A tracker as the relay judged it at start-up. */
export interface ConfiguredTracker {
  tracker: ConfigFileTracker;
  /** Why it is never used (an unset variable, an unusable URL); null when in use. */
  problem: string | null;
  client: TrackerClient | null;
}

/**
 * The trackers of svc.config.json `trackers`. Their requests go through the forges' pinned fetch
 * under the operator's rule (the webhooks' SSRF guard: this host and the LAN allowed, cloud metadata
 * never; the vetted address is the one connected to), and every answer's text is redacted of every
 * tracker's credentials before it is kept or logged.
 */
@Injectable()
export class TrackerDirectory implements OnModuleInit {
  private readonly logger = new Logger('Trackers');
  private readonly entries: ConfiguredTracker[];
  private readonly secrets: (string | null | undefined)[];

  constructor(config: RelayConfig, guard: DestinationGuard) {
    this.secrets = config.trackers.flatMap((t) => [t.token, t.email, t.webhookSecret]);
    const http: TrackerHttp = { fetch: pinnedFetch(guard, TRACKER_REQUEST_TIMEOUT_MS, 'operator'), redact: (text) => this.redact(text) };
    this.entries = config.trackers.map((tracker) => {
      const problem = problemOf(tracker);
      return { tracker, problem, client: problem ? null : clientFor(tracker, http) };
    });
  }

  onModuleInit(): void {
    for (const entry of this.entries) {
      if (entry.problem) this.logger.warn(`svc.config.json tracker "${entry.tracker.name}" is not used: ${entry.problem}`);
    }
  }

  /** Removes every tracker's credentials (token, account e-mail, webhook secret) from a text. */
  redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  names(): string[] {
    return this.entries.map((e) => e.tracker.name);
  }

  /** The names of the trackers in use (configured and not refused at start-up). */
  usable(): string[] {
    return this.entries.filter((e) => e.client).map((e) => e.tracker.name);
  }

  find(name: string): ConfiguredTracker | null {
    return this.entries.find((e) => e.tracker.name === name) ?? null;
  }

  /** The project a tracker files an app's issues in: the app's bundle id's, else `*`'s; null when none. */
  projectFor(tracker: ConfigFileTracker, bundleId: string): string | null {
    return tracker.projects[bundleId] ?? tracker.projects['*'] ?? null;
  }
}

function problemOf(tracker: ConfigFileTracker): string | null {
  try {
    parseWebhookUrl(tracker.url);
  } catch (err) {
    return `its url is not usable (${(err as Error).message})`;
  }
  if (!tracker.token) return `the environment variable ${tracker.tokenEnv} (its token) is not set`;
  if (tracker.emailEnv && !tracker.email) return `the environment variable ${tracker.emailEnv} (the account's e-mail) is not set`;
  return null;
}

function clientFor(tracker: ConfigFileTracker, http: TrackerHttp): TrackerClient {
  switch (tracker.type) {
    case 'jira':
    case 'jira-dc':
      return new JiraTrackerClient(tracker, http);
    case 'linear':
      return new LinearTrackerClient(tracker, http);
    case 'github':
      return new GitHubIssuesClient(tracker, http);
  }
}
