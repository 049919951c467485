import { ApiProperty } from '@nestjs/swagger';
import { FORGE_TYPES, ForgeType } from '../config/forge-config';
import { isoWithMillis, nullableIso } from '../common/time';
import type { ConfiguredForge, ForgeSource } from './forge-directory';
import type { ForgeDeliveryEntity, ForgeStatusEntity } from './outbox/forge-status.entity';

/** A forge as members see it (never a token or key): from svc.config.json or added in the dashboard. */
export class ForgeItem {
  @ApiProperty({ enum: ['config', 'dashboard'], description: 'config: svc.config.json (read-only here); dashboard: added by an Admin' })
  source: ForgeSource;
  @ApiProperty({ type: Number, nullable: true, description: 'position in svc.config.json forges; null for a dashboard forge' })
  index: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "a dashboard forge's id; null for a svc.config.json one" })
  id: number | null;
  @ApiProperty({ enum: FORGE_TYPES })
  type: ForgeType;
  @ApiProperty({ description: 'the API base URL', example: 'https://api.github.com' })
  api_url: string;
  @ApiProperty({ description: 'where people open commits and pull requests', example: 'https://github.com' })
  web_url: string;
  @ApiProperty({ type: [String], example: ['acme/app'] })
  repositories: string[];
  @ApiProperty({ example: 'svc/review' })
  context: string;
  @ApiProperty({ enum: ['token', 'app'], description: 'app: a GitHub App, check runs instead of statuses' })
  auth: 'token' | 'app';
  @ApiProperty({ description: 'a token is set (never returned)' })
  has_token: boolean;
  @ApiProperty({ description: "a GitHub App's private key is set (never returned)" })
  has_private_key: boolean;
  @ApiProperty({ type: String, nullable: true })
  app_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  installation_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why it is not used (an unset variable, an unreadable secret, an unusable URL); null when in use' })
  problem: string | null;
}

export class ForgeList {
  @ApiProperty({ type: [ForgeItem] })
  forges: ForgeItem[];
}

export class ForgeAttempt {
  @ApiProperty({ format: 'date-time' })
  attempted_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status; null for a network error or refused destination' })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty()
  duration_ms: number;
}

/** One status the relay queued for a commit, with its attempts. */
export class ForgeDelivery {
  @ApiProperty()
  id: number;
  @ApiProperty()
  repository: string;
  @ApiProperty()
  commit: string;
  @ApiProperty()
  context: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null for a test status' })
  build_id: number | null;
  @ApiProperty({ enum: ['pending', 'success', 'failure'] })
  state: string;
  @ApiProperty()
  description: string;
  @ApiProperty({ enum: ['queued', 'delivered', 'superseded', 'failed'] })
  status: string;
  @ApiProperty({ type: String, nullable: true })
  last_error: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  delivered_at: string | null;
  @ApiProperty({ type: [ForgeAttempt] })
  attempts: ForgeAttempt[];
}

export class ForgeDeliveryList {
  @ApiProperty({ type: [ForgeDelivery], description: 'newest first, at most 50' })
  deliveries: ForgeDelivery[];
}

/** One attempt in a forge's delivery log, with the status it carried. */
export class ForgeLogItem extends ForgeAttempt {
  @ApiProperty({ description: 'the status (an item of GET /forges/deliveries)' })
  status_id: number;
  @ApiProperty()
  repository: string;
  @ApiProperty()
  commit: string;
  @ApiProperty()
  context: string;
  @ApiProperty({ enum: ['pending', 'success', 'failure'] })
  state: string;
  @ApiProperty()
  description: string;
  @ApiProperty({ description: 'a test status sent from the dashboard' })
  test: boolean;
}

export class ForgeLog {
  @ApiProperty({ type: [ForgeLogItem], description: 'newest first, at most 50' })
  deliveries: ForgeLogItem[];
}

/** The web address people use: api.github.com → github.com, `…/api/v3|v4|v1` → the host. */
export function webUrlOf(forge: Pick<ConfiguredForge['forge'], 'type' | 'url'>): string {
  const url = new URL(forge.url);
  url.username = '';
  url.password = '';
  if (url.hostname === 'api.github.com') return 'https://github.com';
  return `${url.origin}${url.pathname.replace(/\/api\/v\d+\/?$/, '').replace(/\/$/, '')}`;
}

/** The URL without user name or password (an operator may have written them into it). */
function withoutCredentials(raw: string): string {
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  return url.href.replace(/\/$/, '');
}

export function toForgeItem(entry: ConfiguredForge): ForgeItem {
  return {
    source: entry.source,
    index: entry.source === 'config' ? entry.index : null,
    id: entry.source === 'dashboard' ? entry.index : null,
    type: entry.forge.type,
    api_url: withoutCredentials(entry.forge.url),
    web_url: webUrlOf(entry.forge),
    repositories: entry.forge.repositories,
    context: entry.forge.context,
    auth: entry.forge.app ? 'app' : 'token',
    has_token: entry.hasToken,
    has_private_key: entry.hasPrivateKey,
    app_id: entry.forge.app?.appId ?? null,
    installation_id: entry.forge.app?.installationId ?? null,
    problem: entry.problem,
  };
}

function toAttempt(a: ForgeDeliveryEntity): ForgeAttempt {
  return { attempted_at: isoWithMillis(a.attemptedAt), status_code: a.statusCode, error: a.error, duration_ms: a.durationMs };
}

export function toForgeLogItem(attempt: ForgeDeliveryEntity, status: ForgeStatusEntity | undefined): ForgeLogItem {
  return {
    ...toAttempt(attempt),
    status_id: attempt.outboxId,
    repository: status?.repository ?? '',
    commit: status?.commit ?? '',
    context: status?.context ?? '',
    state: status?.state ?? '',
    description: status?.description ?? '',
    test: status?.buildId === 0,
  };
}

export function toForgeDelivery(row: ForgeStatusEntity, attempts: ForgeDeliveryEntity[]): ForgeDelivery {
  return {
    id: row.id,
    repository: row.repository,
    commit: row.commit,
    context: row.context,
    build_id: row.buildId || null,
    state: row.state,
    description: row.description,
    status: row.status,
    last_error: row.lastError,
    created_at: isoWithMillis(row.createdAt),
    delivered_at: nullableIso(row.deliveredAt),
    attempts: attempts.map(toAttempt),
  };
}

export class ChangedCommitItem {
  @ApiProperty()
  sha: string;
  @ApiProperty({ description: 'first line of the message' })
  title: string;
  @ApiProperty({ type: String, nullable: true })
  author: string | null;
  @ApiProperty({ type: String, nullable: true })
  url: string | null;
}

/** GET /builds/:id/changes: the commits since the app's last Done build, or the changelog. */
export class BuildChanges {
  @ApiProperty({ enum: ['forge', 'changelog', 'none'], description: 'forge: commits from the compare API; changelog: the upload\'s text only' })
  source: 'forge' | 'changelog' | 'none';
  @ApiProperty({ type: Number, nullable: true, description: 'the newest Done build of the app and platform before this one, from the same repository' })
  base_build_id: number | null;
  @ApiProperty({ type: String, nullable: true })
  base_commit: string | null;
  @ApiProperty({ type: [ChangedCommitItem], description: 'oldest first, at most 100' })
  commits: ChangedCommitItem[];
  @ApiProperty({ type: String, nullable: true })
  changelog: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why the forge gave no commits (a refusal, no forge listing the repository), when it was asked' })
  problem: string | null;
}
