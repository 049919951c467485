import { ApiProperty } from '@nestjs/swagger';

export type DependencyState = 'ok' | 'down' | 'not_used';

/** Each dependency the instance may use; `not_used` when it is not configured (Redis without SVC_REDIS_URL). */
export class HealthDependencies {
  @ApiProperty({ enum: ['ok', 'down'], description: 'SQLite or PostgreSQL answers a trivial query' })
  database: DependencyState;

  @ApiProperty({ enum: ['ok', 'down'], description: 'the file store answers (data folder readable and writable, or the S3 bucket) and the temp folder is writable, with the 64 MB free-disk reserve still free' })
  storage: DependencyState;

  @ApiProperty({ enum: ['ok', 'down', 'not_used'], description: 'Redis answers PING (several instances, docs/scaling.md)' })
  redis: DependencyState;
}

/** `GET /health` when every dependency the instance needs answers (beyond the spec, for load balancers and orchestrators). */
export class HealthResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiProperty({ example: '0.1.0' })
  version: string;

  @ApiProperty({ example: 3600, description: 'whole seconds since the relay started' })
  uptimeSeconds: number;

  @ApiProperty({ type: HealthDependencies })
  dependencies: HealthDependencies;
}

/** `GET /health/live`: the process answers HTTP (liveness; dependencies are not checked). */
export class LivenessResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';
}
