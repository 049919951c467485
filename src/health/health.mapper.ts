import { ApiProperty } from '@nestjs/swagger';

/** `GET /health` when the database answers (beyond the spec, for orchestrators). */
export class HealthResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiProperty({ example: '0.1.0' })
  version: string;

  @ApiProperty({ example: 3600, description: 'whole seconds since the relay started' })
  uptimeSeconds: number;
}
