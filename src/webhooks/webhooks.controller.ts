import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { toDeliveryItem, toWebhookResponse, WebhookDeliveryItem, WebhookResponse } from './webhooks.mapper';
import { WebhooksService } from './webhooks.service';

/** spec §4 Webhooks: cookie or PAT builds:write; a Viewer gets 403 on every one, list included. */
const WEBHOOK_ACCESS = { cookie: true, pat: 'builds:write', roles: WRITER_ROLES } as const;

@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @Auth(WEBHOOK_ACCESS)
  async list(): Promise<{ webhooks: WebhookResponse[] }> {
    return { webhooks: (await this.webhooks.list()).map(toWebhookResponse) };
  }

  @Post()
  @Auth(WEBHOOK_ACCESS)
  async create(@Body() dto: CreateWebhookDto): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.create(dto));
  }

  @Patch(':id')
  @Auth(WEBHOOK_ACCESS)
  async update(@Param('id', ParseIdPipe) id: number, @Body() dto: UpdateWebhookDto): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.update(id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth(WEBHOOK_ACCESS)
  async remove(@Param('id', ParseIdPipe) id: number): Promise<{ ok: true }> {
    await this.webhooks.remove(id);
    return { ok: true };
  }

  /** The newest 50 delivery attempts of this webhook (beyond the spec; docs/webhooks.md). */
  @Get(':id/deliveries')
  @Auth(WEBHOOK_ACCESS)
  async deliveries(@Param('id', ParseIdPipe) id: number): Promise<{ deliveries: WebhookDeliveryItem[] }> {
    return { deliveries: (await this.webhooks.deliveries(id)).map(toDeliveryItem) };
  }
}
