import { Injectable } from '@nestjs/common';
import { badRequest, notFound } from '../common/errors/http-error';
import { Clock } from '../common/clock';
import type { TestStatusResult } from './dto/test-status.dto';
import { ForgeDirectory } from './forge-directory';
import { BuildChangesReader } from './changes/build-changes-reader';
import { BuildChanges, ForgeDelivery, ForgeItem, toForgeDelivery, toForgeItem } from './forges.mapper';
import { ForgeOutboxRepository } from './outbox/forge-outbox.repository';
import { judgeFailure } from './outbox/retry-policy';

export const FORGE_NOT_FOUND = 'Forge not found';

/** What the forges API answers: the configured forges, the delivery log, a test status. */
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
    const rows = await this.outbox.recent(50);
    const attempts = await this.outbox.attemptsOf(rows.map((r) => r.id));
    return rows.map((row) => toForgeDelivery(row, attempts.filter((a) => a.outboxId === row.id)));
  }

  /** One attempt, not queued and not retried: the answer is that attempt. */
  async sendTestStatus(index: number, repository: string, commit: string): Promise<TestStatusResult> {
    const entry = this.directory.all()[index];
    if (!entry) throw notFound(FORGE_NOT_FOUND);
    if (!entry.client) throw badRequest(`svc.config.json forges[${index}] is not used: ${entry.problem}`);
    if (!entry.forge.repositories.some((r) => r.toLowerCase() === repository.toLowerCase())) {
      throw badRequest(`svc.config.json forges[${index}] does not list ${repository}`);
    }
    const context = `${entry.forge.context}/test`;
    try {
      await entry.client.post({ buildId: 0, repository, commit, context, state: 'success', description: 'Test status from svc relay', targetUrl: null, summary: null });
      return { ok: true, status_code: 200, error: null, context };
    } catch (err) {
      const verdict = judgeFailure(err, 1, this.clock.nowMs());
      return { ok: false, status_code: verdict.statusCode, error: verdict.error, context };
    }
  }
}
