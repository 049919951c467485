import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { clientAddress } from '../common/net/relay-host';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ChatSettingsService } from './chat-settings.service';
import { ChatRouteItem, ChatSettings, SlackActionAnswer } from './chat.mapper';
import { CreateChatRouteDto } from './dto/create-chat-route.dto';
import { SlackActionsService } from './slack/slack-actions.service';

const ROUTE_NOT_FOUND = 'Chat destination not found';

/** Slack and Teams (beyond the spec: docs/integrations.md "Slack and Microsoft Teams"): Slack's Request URL and the destinations. */
@ApiTags('chat')
@Controller('integrations')
export class ChatController {
  constructor(
    private readonly actions: SlackActionsService,
    private readonly settings: ChatSettingsService,
  ) {}

  @Post('slack/actions')
  @HttpCode(200)
  // Slack signs the request with the app's signing secret: the service verifies it before anything else.
  @Auth({ public: true })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOkResponse({ type: SlackActionAnswer, description: "verified with Slack's signing secret; a refusal is also answered in Slack" })
  @ApiErrors(401, 404)
  receive(@Req() req: Request & { rawBody?: Buffer }): Promise<SlackActionAnswer> {
    return this.actions.receive(req.headers, req.rawBody ?? Buffer.alloc(0), clientAddress(req));
  }

  @Get('chat')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: ChatSettings, description: 'never a credential' })
  @ApiErrors(401, 403)
  list(): Promise<ChatSettings> {
    return this.settings.list();
  }

  @Post('chat/routes')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiCreatedResponse({ type: ChatRouteItem })
  @ApiErrors(400, 401, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateChatRouteDto): Promise<ChatRouteItem> {
    return this.settings.create(principal, body);
  }

  @Delete('chat/routes/:id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(ROUTE_NOT_FOUND)) id: number): Promise<void> {
    await this.settings.remove(principal, id);
  }
}
