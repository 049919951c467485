import { ApiProperty } from '@nestjs/swagger';
import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RELAY_VERSION } from '../bootstrap/version';
import { Clock } from '../common/clock';
import { RelayException } from '../common/errors/relay-exception';

/** GET /health body when the relay can serve (beyond the spec; what orchestrators probe). */
/** `GET /health` when the database answers (beyond the spec, for orchestrators). */
export class HealthResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiProperty({ example: '0.1.0' })
  version: string;

  @ApiProperty({ example: 3600, description: 'whole seconds since the relay started' })
  uptimeSeconds: number;
}

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
      throw new RelayException(HttpStatus.SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE);
    }
    return {
      status: 'ok',
      version: RELAY_VERSION,
      uptimeSeconds: Math.floor((this.clock.nowMs() - this.startedAtMs) / 1000),
    };
  }
}
