import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { OutboxDestination, toOutboxDestination } from './outbox.mapper';
import { OutboxRepository } from './outbox.repository';

/** Beyond the spec (docs/integrations.md "One delivery path"): what the outbox holds, per destination. */
@ApiTags('outbox')
@Controller('outbox')
export class OutboxController {
  constructor(private readonly outbox: OutboxRepository) {}

  @Get('destinations')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: "Every destination of outgoing mail, Slack, Teams and tracker calls: queued, delivered and failed counts, the newest attempt's error (credentials redacted)" })
  @ApiOkResponse({ type: [OutboxDestination] })
  @ApiErrors(401, 403)
  async destinations(): Promise<OutboxDestination[]> {
    return (await this.outbox.destinations()).map(toOutboxDestination);
  }
}
