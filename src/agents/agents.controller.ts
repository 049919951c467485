import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { AgentStatusList, AgentStatusService } from './agent-status';
import { AgentResourceSample } from './resources/agent-resources.mapper';
import { AgentResourcesService } from './resources/agent-resources.service';
import { parseResourceRange } from './resources/resource-range';

/** spec §4 Agents: names with samples on record, and one agent's history. Session cookie only (§5.3). */
@ApiTags('agents')
@Controller('agents')
export class AgentsController {
  constructor(
    private readonly resources: AgentResourcesService,
    private readonly status: AgentStatusService,
  ) {}

  @Get()
  @Auth({ cookie: true })
  @ApiOkResponse({
    schema: { type: 'array', items: { type: 'string' } },
    description: 'names of agents with resource samples on record (samples are kept 30 days)',
  })
  @ApiErrors(401)
  list(): Promise<string[]> {
    return this.resources.agentNames();
  }

  /** Beyond the spec (docs/agents.md "Agent status"): what the dashboard's agents page shows. */
  @Get('status')
  @Header('Cache-Control', 'no-store')
  @Auth({ cookie: true })
  @ApiOperation({ summary: 'Every agent the relay knows: online or not, version, OS, host, device counts' })
  @ApiOkResponse({ type: AgentStatusList })
  @ApiErrors(401)
  async statusList(): Promise<AgentStatusList> {
    return { items: await this.status.list() };
  }

  @Get(':name/resources')
  @Auth({ cookie: true })
  @ApiQuery({ name: 'range', required: false, enum: ['1h', '6h', '24h', '7d'], schema: { default: '1h' } })
  @ApiOkResponse({ type: [AgentResourceSample], description: 'one sample a minute, oldest first' })
  @ApiErrors(400, 401)
  history(@Param('name') name: string, @Query('range') range: unknown): Promise<AgentResourceSample[]> {
    return this.resources.history(name, parseResourceRange(range));
  }
}
