import { Injectable, OnModuleInit } from '@nestjs/common';
import { RelayMetrics } from '../metrics/relay-metrics';
import { AgentDirectory } from './agent-directory.service';

/** Connected agents and the devices they list, read from the directory at scrape time. */
@Injectable()
export class AgentMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: RelayMetrics,
    private readonly directory: AgentDirectory,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('svc_agents_connected', 'Agents with an open WebSocket', [], () => this.directory.all().length);
    this.metrics.gauge('svc_devices', 'Devices listed by connected agents, by state (booted, shutdown)', ['state'], () => {
      const online = this.directory.allDevices().filter((d) => d.connection);
      return ['booted', 'shutdown'].map((state) => ({
        labels: { state },
        value: online.filter((d) => d.device.state === state).length,
      }));
    });
  }
}
