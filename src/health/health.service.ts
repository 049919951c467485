import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RELAY_VERSION } from '../bootstrap/version';
import { Clock } from '../common/clock';
import { HttpError } from '../common/errors/http-error';
import type { HealthResponse } from './health.mapper';

export const DATABASE_UNAVAILABLE = 'Database unavailable';

/** Liveness and readiness in one: the relay is healthy when its database answers a trivial query. */
@Injectable()
export class HealthService {
  private readonly startedAtMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.startedAtMs = clock.nowMs();
  }

  async check(): Promise<HealthResponse> {
    try {
      if (!this.dataSource.isInitialized) throw new Error('data source closed');
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new HttpError(HttpStatus.SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE);
    }
    return {
      status: 'ok',
      version: RELAY_VERSION,
      uptimeSeconds: Math.floor((this.clock.nowMs() - this.startedAtMs) / 1000),
    };
  }
}
