import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiConsumes, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { clientAddress } from '../common/net/relay-host';
import { SlackActionAnswer } from './chat.mapper';
import { SlackActionsService } from './slack/slack-actions.service';

/** Slack's Request URL for the buttons of build notices (beyond the spec: docs/integrations.md "Slack and Microsoft Teams"). */
@ApiTags('chat')
@Controller()
export class ChatController {
  constructor(private readonly actions: SlackActionsService) {}

  @Post('integrations/slack/actions')
  @HttpCode(200)
  // Slack signs the request with the app's signing secret: the service verifies it before anything else.
  @Auth({ public: true })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOkResponse({ type: SlackActionAnswer, description: "verified with Slack's signing secret; a refusal is also answered in Slack" })
  @ApiErrors(401, 404)
  receive(@Req() req: Request & { rawBody?: Buffer }): Promise<SlackActionAnswer> {
    return this.actions.receive(req.headers, req.rawBody ?? Buffer.alloc(0), clientAddress(req));
  }
}
