import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { PublicUrlService } from '../relay/public-url.service';
import { ChatDestinations } from './chat-destinations';
import { type ChatRouteItem, type ChatSettings, toChatRouteItem } from './chat.mapper';
import type { CreateChatRouteDto } from './dto/create-chat-route.dto';
import { ChatRoutesService } from './routes/chat-routes.service';

/** What the Integrations page's chat section shows and changes (Admins). */
@Injectable()
export class ChatSettingsService {
  constructor(
    private readonly destinations: ChatDestinations,
    private readonly routes: ChatRoutesService,
    private readonly publicUrl: PublicUrlService,
  ) {}

  async list(): Promise<ChatSettings> {
    const slack = this.destinations.slack;
    const base = this.publicUrl.publicBaseUrl()?.replace(/\/+$/, '') ?? null;
    return {
      slack: slack && {
        bot_token_env: slack.botTokenEnv,
        has_bot_token: slack.botToken !== null,
        signing_secret_env: slack.signingSecretEnv,
        has_signing_secret: slack.signingSecret !== null,
        request_url: base && `${base}/api/v1/integrations/slack/actions`,
      },
      routes: (await this.routes.all()).map(toChatRouteItem),
    };
  }

  async create(principal: Principal, dto: CreateChatRouteDto): Promise<ChatRouteItem> {
    const target = dto.kind === 'slack' ? dto.channel! : dto.name!;
    const apps = dto.apps?.includes('*') ? null : (dto.apps ?? null);
    return toChatRouteItem(await this.routes.create(principal, { kind: dto.kind, target, url: dto.kind === 'teams' ? dto.url! : null, apps, branches: dto.branches ?? null }));
  }

  remove(principal: Principal, id: number): Promise<void> {
    return this.routes.delete(principal, id);
  }
}
