import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { AgentDirectory } from './agent-directory.service';
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
 * Every agent the relay knows: connected or seen since start-up (in memory), or with resource
 * samples on record (the database, 30 days). What only a live agent says (hello, devices) is
 * unknown for one that has not connected since the relay started.
 */
@Injectable()
export class AgentStatusService {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly resources: AgentResourcesService,
  ) {}

  async list(): Promise<AgentStatus[]> {
    const names = new Set([...this.directory.namesSeen(), ...(await this.resources.agentNames())]);
    const devices = this.directory.allDevices();
    const items = [...names].map((name): AgentStatus => {
      const hello = this.directory.lastHello(name) ?? {};
      const own = devices.filter((d) => d.agentName === name);
      return {
        name,
        online: this.directory.connection(name)?.open ?? false,
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
