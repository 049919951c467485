import { Injectable, OnModuleInit } from '@nestjs/common';
import { changedToFinal, type BuildStatus } from '../../builds/build-status';
import { StatusChangeAudience } from '../../builds/status-change-audience';
import { WebhooksService } from '../webhooks.service';
import { ConfigFileWebhooks } from './config-file-webhooks';

/**
 * How many endpoints a status change notifies, so the one who made it is told the truth ("no
 * webhook" rather than "webhooks notified"). The same rule and the same endpoints as the
 * dispatcher: spec §3's firing rule, every enabled API webhook and every usable svc.config.json
 * entry. Counted when the change commits; one enabled or disabled in the same instant may differ.
 * Builds asks it through its `StatusChangeAudience`, where it registers (builds is below webhooks).
 */
@Injectable()
export class WebhookAudience implements OnModuleInit {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly configFile: ConfigFileWebhooks,
    private readonly audience: StatusChangeAudience,
  ) {}

  onModuleInit(): void {
    this.audience.register((previous, next) => this.notifiedBy(previous, next));
  }

  async notifiedBy(previous: BuildStatus | null, next: BuildStatus | null): Promise<number> {
    if (!changedToFinal(previous, next)) return 0;
    return (await this.webhooks.countEnabled()) + this.configFile.endpoints().length;
  }
}
