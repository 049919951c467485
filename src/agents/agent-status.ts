import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { AgentDirectory } from './agent-directory.service';
import { AgentLocator } from './agent-locator.service';
import { AgentResourcesService } from './resources/agent-resources.service';

/** One agent on the agents page (beyond the spec; docs/agents.md "Agent status"). */
export class AgentStatus {
  @ApiProperty({ example: 'mac-mini-3' })
  name: string;
  @ApiProperty({ description: 'connected now' })
  online: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'from its last hello since the relay started; null when unknown' })
  version: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'darwin 24.1.0' })
  os: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'mac-mini-3.local' })
  hostname: string | null;
  @ApiProperty({ description: 'devices in its last list' })
  devices: number;
  @ApiProperty({ description: 'of which booted' })
  booted: number;
}

/** GET /agents/status. */
export class AgentStatusList {
  @ApiProperty({ type: [AgentStatus], description: 'online agents first, then by name' })
  items: AgentStatus[];
}

/**
 * Every agent the relay knows: connected or seen since start-up, or with resource samples on record
 * (the database, 30 days). The hello (version, OS, host) is what this instance heard: unknown for
 * an agent that has not connected to it since it started.
 */
@Injectable()
export class AgentStatusService {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly locator: AgentLocator,
    private readonly resources: AgentResourcesService,
  ) {}

  async list(): Promise<AgentStatus[]> {
    // Device lists and who holds each agent come through the locator, so with several instances
    // (docs/scaling.md) an agent connected to another one counts as online with its devices.
    const devices = await this.locator.allDevices();
    const names = new Set([
      ...this.directory.namesSeen(),
      ...devices.map((d) => d.agentName),
      ...(await this.resources.agentNames()),
    ]);
    const items = [...names].map((name): AgentStatus => {
      const hello = this.directory.lastHello(name) ?? {};
      const own = devices.filter((d) => d.agentName === name);
      return {
        name,
        online: (this.directory.connection(name)?.open ?? false) || own.some((d) => d.instanceId !== null),
        version: hello.version ?? null,
        os: hello.os ?? null,
        hostname: hello.hostname ?? null,
        devices: own.length,
        booted: own.filter((d) => d.device.state === 'booted').length,
      };
    });
    return items.sort((a, b) => Number(b.online) - Number(a.online) || a.name.localeCompare(b.name));
  }
}
