import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AtOrAfter, Before } from '../../database/timestamp.column';
import { AgentResourceSampleEntity } from './agent-resource-sample.entity';

export type NewSample = Omit<AgentResourceSampleEntity, 'id'>;

/** Resource samples; every read goes through the (agent_name, minute) unique index. */
@Injectable()
export class AgentResourcesRepository {
  constructor(
    @InjectRepository(AgentResourceSampleEntity) private readonly samples: Repository<AgentResourceSampleEntity>,
  ) {}

  /** Stores each sample as its agent's sample of that minute, replacing an earlier one of the same minute. */
  async saveLatestOfMinute(samples: NewSample[]): Promise<void> {
    if (!samples.length) return;
    await this.samples.upsert(samples, { conflictPaths: ['agentName', 'minute'] });
  }

  async agentNames(): Promise<string[]> {
    const rows = await this.samples
      .createQueryBuilder('s')
      .select('s.agent_name', 'name')
      .distinct(true)
      .orderBy('s.agent_name', 'ASC')
      .getRawMany<{ name: string }>();
    return rows.map((r) => r.name);
  }

  since(agentName: string, from: Date): Promise<AgentResourceSampleEntity[]> {
    return this.samples.find({ where: { agentName, minute: AtOrAfter(from) }, order: { minute: 'ASC' } });
  }

  async deleteBefore(cutoff: Date): Promise<number> {
    const result = await this.samples.delete({ minute: Before(cutoff) });
    return result.affected ?? 0;
  }
}
