import { Injectable, OnModuleInit } from '@nestjs/common';
import { RelayMetrics } from '../metrics/relay-metrics';
import { BUILD_STATUSES } from './build-status';
import { BuildsRepository } from './builds.repository';

/** `svc_builds{status}`: builds on record by review status (`none` when unset), counted at scrape time. */
@Injectable()
export class BuildMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: RelayMetrics,
    private readonly builds: BuildsRepository,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('svc_builds', 'Builds on record, by review status (none = unset)', ['status'], async () => {
      const counts = new Map((await this.builds.countByStatus()).map((r) => [r.status ?? 'none', r.count]));
      // every status always present (0 included), so a dashboard's series never vanish
      return [...BUILD_STATUSES, 'none'].map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 }));
    });
  }
}
