import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY, WRITER_ROLES } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { toDeliveryItem, toWebhookResponse, Webhook, WebhookDeliveryItem, WebhookDeliveryList, WebhookList } from './webhooks.mapper';
import { WEBHOOK_NOT_FOUND, WebhooksService } from './webhooks.service';

/** spec §4 Webhooks: cookie or PAT builds:write; a Viewer gets 403 on every one, list included. */
export const WEBHOOK_ACCESS = { cookie: true, pat: 'builds:write', roles: WRITER_ROLES } as const;

@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @Get()
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({ summary: 'List webhooks registered through the API (`has_secret`, never the secret)' })
  @ApiOkResponse({ type: WebhookList })
  @ApiErrors(401, 403)
  async list(): Promise<WebhookList> {
    return { webhooks: (await this.webhooks.list()).map(toWebhookResponse) };
  }

  @Post()
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({
    summary: 'Register a webhook',
    description: 'http(s) only; loopback, this host, link-local, cloud-metadata and special-purpose destinations are 400 (docs/webhooks.md).',
  })
  @ApiCreatedResponse({ type: Webhook })
  @ApiErrors(400, 401, 403)
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateWebhookDto): Promise<Webhook> {
    return toWebhookResponse(await this.webhooks.create(principal, dto));
  }

  @Patch(':id')
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({ summary: 'Change url, secret (null removes it) or enabled; only the fields sent; 400 when none' })
  @ApiOkResponse({ type: Webhook, description: 'the updated webhook' })
  @ApiErrors(400, 401, 403, 404)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(WEBHOOK_NOT_FOUND)) id: number,
    @Body() dto: UpdateWebhookDto,
  ): Promise<Webhook> {
    return toWebhookResponse(await this.webhooks.update(principal, id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({ summary: 'Delete a webhook and its delivery log' })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(WEBHOOK_NOT_FOUND)) id: number): Promise<OkResponse> {
    await this.webhooks.remove(principal, id);
    return { ok: true };
  }

  /** The newest 50 delivery attempts of this webhook (beyond the spec; docs/webhooks.md). */
  @Get(':id/deliveries')
  @Auth(WEBHOOK_ACCESS)
  @ApiOperation({
    summary: 'Delivery log: the newest 50 attempts, newest first',
    description:
      'Each item: delivery_id (the X-Svc-Delivery header, the same on retries), event, attempt, attempted_at, status_code or null, error or null, duration_ms. The same attempts are written to the relay log (/logs).',
  })
  @ApiOkResponse({ type: WebhookDeliveryList })
  @ApiErrors(400, 401, 403, 404)
  async deliveries(@Param('id', new ParseIdPipe(WEBHOOK_NOT_FOUND)) id: number): Promise<WebhookDeliveryList> {
    return { deliveries: (await this.webhooks.deliveries(id)).map(toDeliveryItem) };
  }

  /** A test delivery (beyond the spec; docs/webhooks.md): Admins only, since it makes the relay call out on demand. */
  @Post(':id/test')
  @HttpCode(200)
  @Auth({ ...WEBHOOK_ACCESS, roles: ADMIN_ONLY })
  @ApiOperation({
    summary: 'Send a signed `ping` event now and answer with the attempt',
    description:
      'One attempt through the normal delivery path (destination rules checked again, X-Svc-Signature when a secret is set, X-Svc-Event: ping), disabled webhooks included, no retries. The attempt is recorded in the delivery log; a refused destination, a timeout or a non-2xx answer is a 200 whose status_code/error say so. Body: {"event":"ping","webhook":{"id":"3"},"sentAt":"…"}.',
  })
  @ApiOkResponse({ type: WebhookDeliveryItem, description: 'the attempt, as the delivery log shows it' })
  @ApiErrors(400, 401, 403, 404)
  async test(@Param('id', new ParseIdPipe(WEBHOOK_NOT_FOUND)) id: number): Promise<WebhookDeliveryItem> {
    return toDeliveryItem(await this.dispatcher.ping(id));
  }
}
