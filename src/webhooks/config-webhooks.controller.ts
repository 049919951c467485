import { Controller, Get, HttpCode, Injectable, Param, PipeTransform, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { notFound } from '../common/errors/http-error';
import { ConfigFileWebhooks } from './delivery/config-file-webhooks';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { ConfigWebhookList, toConfigWebhook, toDeliveryItem, WebhookDeliveryItem, WebhookDeliveryList } from './webhooks.mapper';
import { WEBHOOK_ACCESS } from './webhooks.controller';
import { WEBHOOK_NOT_FOUND } from './webhooks.service';

/** `:index` of a file entry: a plain non-negative integer; anything else names no entry (404). */
@Injectable()
class ParseEntryIndexPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^(0|[1-9]\d{0,5})$/.test(value)) throw notFound(WEBHOOK_NOT_FOUND);
    return Number(value);
  }
}

/**
 * svc.config.json webhooks, read-only (beyond the spec; docs/webhooks.md "Config-file webhooks"):
 * the file is the operator's, so the API lists them, shows their delivery log and lets an Admin
 * test one, but never changes them. Same access as the spec's webhook endpoints.
 */
@ApiTags('webhooks')
@Controller('webhooks/config')
export class ConfigWebhooksController {
  constructor(
    private readonly configFile: ConfigFileWebhooks,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @Get()
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({ summary: 'List the webhooks declared in svc.config.json, used or not (read-only)' })
  @ApiOkResponse({ type: ConfigWebhookList })
  @ApiErrors(401, 403)
  list(): ConfigWebhookList {
    return { webhooks: this.configFile.entries().map(toConfigWebhook) };
  }

  @Get(':index/deliveries')
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({
    summary: 'Delivery log of a svc.config.json webhook: the newest 50 attempts this relay made since it started, newest first',
  })
  @ApiOkResponse({ type: WebhookDeliveryList })
  @ApiErrors(401, 403, 404)
  deliveries(@Param('index', ParseEntryIndexPipe) index: number): WebhookDeliveryList {
    return { deliveries: this.configFile.deliveries(index).map(toDeliveryItem) };
  }

  @Post(':index/test')
  @HttpCode(200)
  @Auth({ ...WEBHOOK_ACCESS, roles: ADMIN_ONLY })
  @ApiOperation({
    summary: 'Send a signed `ping` to a svc.config.json webhook now and answer with the attempt',
    description: 'As POST /webhooks/:id/test; an entry not in use (disabled, unset secret variable, refused destination) is 400 naming why.',
  })
  @ApiOkResponse({ type: WebhookDeliveryItem, description: 'the attempt, as the delivery log shows it' })
  @ApiErrors(400, 401, 403, 404)
  async test(@Param('index', ParseEntryIndexPipe) index: number): Promise<WebhookDeliveryItem> {
    return toDeliveryItem(await this.dispatcher.pingConfigEntry(index));
  }
}
