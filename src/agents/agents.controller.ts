import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { AgentResourceSample } from './resources/agent-resources.mapper';
import { AgentResourcesService } from './resources/agent-resources.service';
import { parseResourceRange } from './resources/resource-range';

/** spec §4 Agents: names with samples on record, and one agent's history. Session cookie only (§5.3). */
@ApiTags('agents')
@Controller('agents')
export class AgentsController {
  constructor(private readonly resources: AgentResourcesService) {}

  @Get()
  @Auth({ cookie: true })
  list(): Promise<string[]> {
    return this.resources.agentNames();
  }

  @Get(':name/resources')
  @Auth({ cookie: true })
  history(@Param('name') name: string, @Query('range') range: unknown): Promise<AgentResourceSample[]> {
    return this.resources.history(name, parseResourceRange(range));
  }
}
