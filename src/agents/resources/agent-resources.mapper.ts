import { isoWithoutMillis } from '../../common/time';
import type { AgentResourceSampleEntity } from './agent-resource-sample.entity';

/** spec §2 "Agent resource sample". */
export interface AgentResourceSample {
  cpu_percent: number;
  mem_percent: number;
  recorded_at: string;
}

export function toAgentResourceSample(sample: AgentResourceSampleEntity): AgentResourceSample {
  return {
    cpu_percent: sample.cpuPercent,
    mem_percent: sample.memPercent,
    recorded_at: isoWithoutMillis(sample.recordedAt),
  };
}
