import { ApiProperty } from '@nestjs/swagger';
import { isoWithoutMillis } from '../../common/time';
import type { AgentResourceSampleEntity } from './agent-resource-sample.entity';

/** spec §2 "Agent resource sample". */
export class AgentResourceSample {
  @ApiProperty({ example: 12.5 })
  cpu_percent: number;
  @ApiProperty({ example: 48.1 })
  mem_percent: number;
  @ApiProperty({ format: 'date-time', description: 'without milliseconds', example: '2025-01-01T12:00:00Z' })
  recorded_at: string;
}

export function toAgentResourceSample(sample: AgentResourceSampleEntity): AgentResourceSample {
  return {
    cpu_percent: sample.cpuPercent,
    mem_percent: sample.memPercent,
    recorded_at: isoWithoutMillis(sample.recordedAt),
  };
}
