import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors, ErrorResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { LIVE_EVENTS } from './live-events.mapper';
import { HEARTBEAT_MS, MAX_BUFFERED_BYTES, MAX_STREAMS_PER_MEMBER, RETRY_MS } from './live-events.service';
import { LiveEventsService } from './live-events.service';

const EVENT_LIST = Object.entries(LIVE_EVENTS)
  .map(([name, type]) => `\`${name}\` (${type.name})`)
  .join(', ');

@ApiTags('events')
@Controller('events')
export class LiveEventsController {
  constructor(private readonly live: LiveEventsService) {}

  /** Beyond the spec: the dashboard's live updates (docs/dashboard.md). */
  @Get()
  @Auth({ cookie: true })
  @ApiExtraModels(...new Set(Object.values(LIVE_EVENTS)))
  @ApiOkResponse({
    description:
      'Server-sent events (`event: <name>` + `data: <JSON>`), for the signed-in browser only (session cookie; a PAT is 401). ' +
      `Events: ${EVENT_LIST}. The first is \`ready\`. Comment pings every ${HEARTBEAT_MS / 1000} s; \`retry: ${RETRY_MS}\`. ` +
      'The stream closes after `session.ended` (sign-out, password change or reset, member removed, session expired), ' +
      `and is dropped when the client leaves more than ${MAX_BUFFERED_BYTES} bytes unread. Events are not replayed: ` +
      'after reconnecting, refetch what is shown.',
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'one payload schema per event name',
          'x-event-payloads': Object.fromEntries(
            Object.entries(LIVE_EVENTS).map(([name, type]) => [name, { $ref: getSchemaPath(type) }]),
          ),
        } as object,
      },
    },
  })
  @ApiErrors(401)
  @ApiResponse({ status: 429, description: `the member already has ${MAX_STREAMS_PER_MEMBER} streams open`, type: ErrorResponse })
  stream(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): void {
    this.live.open(req, res, principal);
  }
}
