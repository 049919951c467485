import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { badRequest, notFound } from '../common/errors/http-error';
import { Clock } from '../common/clock';
import type { TestStatusResult } from './dto/test-status.dto';
import { ConfiguredForge, ForgeDirectory, ForgeSource } from './forge-directory';
import { BuildChangesReader } from './changes/build-changes-reader';
import { BuildChanges, ForgeDelivery, ForgeItem, ForgeLogItem, toForgeDelivery, toForgeItem, toForgeLogItem } from './forges.mapper';
import { ForgeOutboxRepository } from './outbox/forge-outbox.repository';
import { judgeFailure } from '../outbox/retry-policy';

export const FORGE_NOT_FOUND = 'Forge not found';
const LOG_SIZE = 50;

/** How messages name a forge: `svc.config.json forges[0]`, `forge #3`. */
export function forgeName(entry: Pick<ConfiguredForge, 'source' | 'index'>): string {
  return entry.source === 'config' ? `svc.config.json forges[${entry.index}]` : `forge #${entry.index}`;
}

/** What the forges API answers: the forges, the delivery logs, a test status. */
@Injectable()
export class ForgesService {
  constructor(
    private readonly directory: ForgeDirectory,
    private readonly outbox: ForgeOutboxRepository,
    private readonly changes: BuildChangesReader,
    private readonly clock: Clock,
  ) {}

  /** What changed in a build: the commits since the app's last Done build, or the changelog. */
  changesOf(buildId: number): Promise<BuildChanges> {
    return this.changes.of(buildId);
  }

  list(): ForgeItem[] {
    return this.directory.all().map(toForgeItem);
  }

  async deliveries(): Promise<ForgeDelivery[]> {
    const rows = await this.outbox.recent(LOG_SIZE);
    const attempts = await this.outbox.attemptsOf(rows.map((r) => r.id));
    return rows.map((row) => toForgeDelivery(row, attempts.filter((a) => a.outboxId === row.id)));
  }

  /** One forge's newest attempts with the statuses they carried (its delivery log). */
  async log(source: ForgeSource, index: number): Promise<ForgeLogItem[]> {
    const entry = this.require(source, index);
    const attempts = await this.outbox.attemptsOfForge(entry.key, LOG_SIZE);
    const statuses = await this.outbox.statusesById([...new Set(attempts.map((a) => a.outboxId))]);
    return attempts.map((a) => toForgeLogItem(a, statuses.find((s) => s.id === a.outboxId)));
  }

  /** One attempt, not queued and not retried, kept in the forge's delivery log: the answer is that attempt. */
  async sendTestStatus(source: ForgeSource, index: number, repository: string, commit: string): Promise<TestStatusResult> {
    const entry = this.require(source, index);
    if (!entry.client) throw badRequest(`${forgeName(entry)} is not used: ${entry.problem}`);
    const listed = entry.forge.repositories.find((r) => r.toLowerCase() === repository.toLowerCase());
    if (!listed) throw badRequest(`${forgeName(entry)} does not list ${repository}`);
    const context = `${entry.forge.context}/test`;
    const status = { buildId: 0, repository: listed, commit, context, state: 'success' as const, description: 'Test status from svc relay', targetUrl: null, summary: null };
    const started = performance.now();
    const attemptedAt = this.clock.now();
    let result: TestStatusResult;
    try {
      await entry.client.post(status);
      result = { ok: true, status_code: 200, error: null, context };
    } catch (err) {
      const verdict = judgeFailure(err, 1, this.clock.nowMs());
      result = { ok: false, status_code: verdict.statusCode, error: verdict.error.slice(0, 500), context };
    }
    const now = this.clock.now();
    await this.outbox.recordTest(
      { ...status, gateVersions: null, status: result.ok ? 'delivered' : 'failed', attempts: 1, nextAttemptAt: now, lastError: result.error, createdAt: attemptedAt, deliveredAt: result.ok ? now : null },
      { forge: entry.label, forgeKey: entry.key, attemptedAt, statusCode: result.status_code, error: result.error, durationMs: Math.round(performance.now() - started) },
    );
    return result;
  }

  private require(source: ForgeSource, index: number): ConfiguredForge {
    const entry = this.directory.find(source, index);
    if (!entry) throw notFound(FORGE_NOT_FOUND);
    return entry;
  }
}
