import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { DAY_MS, MINUTE_MS } from '../../common/time';
import { AgentResourceSample, toAgentResourceSample } from './agent-resources.mapper';
import { AgentResourcesRepository, NewSample } from './agent-resources.repository';

export const RESOURCE_RETENTION_MS = 30 * DAY_MS;

/**
 * Resource history (spec §2, agent-protocol §2.3): agents may report at any rate; the relay keeps
 * the latest sample of each clock minute per agent, for 30 days. The current minute's sample waits
 * in memory and is written when the minute turns, before any read, and at shutdown, so a chatty
 * agent costs at most one write a minute.
 */
@Injectable()
export class AgentResourcesService {
  private readonly logger = new Logger('AgentResources');
  private readonly buffered = new Map<string, NewSample>();

  constructor(
    private readonly repository: AgentResourcesRepository,
    private readonly clock: Clock,
  ) {}

  record(agentName: string, cpuPercent: number, memPercent: number): void {
    const now = this.clock.nowMs();
    const minute = new Date(now - (now % MINUTE_MS));
    const previous = this.buffered.get(agentName);
    this.buffered.set(agentName, {
      agentName,
      minute,
      recordedAt: new Date(now - (now % 1000)),
      cpuPercent,
      memPercent,
    });
    if (previous && previous.minute.getTime() !== minute.getTime()) {
      this.repository
        .saveLatestOfMinute([previous])
        .catch((err) => this.logger.error(`Storing a resource sample failed: ${(err as Error).message}`));
    }
  }

  async flush(): Promise<void> {
    const samples = [...this.buffered.values()];
    this.buffered.clear();
    await this.repository.saveLatestOfMinute(samples);
  }

  async agentNames(): Promise<string[]> {
    await this.flush();
    return this.repository.agentNames();
  }

  async history(agentName: string, rangeMs: number): Promise<AgentResourceSample[]> {
    await this.flush();
    const from = new Date(this.clock.nowMs() - rangeMs);
    return (await this.repository.since(agentName, from)).map(toAgentResourceSample);
  }

  purgeExpired(): Promise<number> {
    return this.repository.deleteBefore(new Date(this.clock.nowMs() - RESOURCE_RETENTION_MS));
  }
}
