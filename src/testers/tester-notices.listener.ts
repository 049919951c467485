import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildStatusChangedEvent } from '../builds/events/build-status-changed.event';
import { BuildUploadedEvent } from '../builds/events/build-uploaded.event';
import { MAIL_KIND, type QueuedMail } from '../mail/mail-outbox.sender';
import { OutboxMessageFailedEvent } from '../outbox/outbox-sender';
import { TESTER_MAIL_ORIGIN, TesterNoticesService } from './tester-notices.service';

/** Builds landing and notices bouncing, turned into the testers' notices and refusals; never throws. */
@Injectable()
export class TesterNoticesListener {
  private readonly logger = new Logger('Testers');

  constructor(private readonly notices: TesterNoticesService) {}

  @OnEvent(BuildUploadedEvent.eventName, { async: true })
  async uploaded(event: BuildUploadedEvent): Promise<void> {
    await this.safely(() => this.notices.buildLanded(event.buildId, event.appId, 'uploaded'));
  }

  @OnEvent(BuildStatusChangedEvent.eventName, { async: true })
  async statusChanged(event: BuildStatusChangedEvent): Promise<void> {
    if (event.status !== 'Done' || event.previousStatus === 'Done') return;
    await this.safely(() => this.notices.buildLanded(event.build.id, event.build.appId, 'done'));
  }

  @OnEvent(OutboxMessageFailedEvent.eventName, { async: true })
  async failed(event: OutboxMessageFailedEvent): Promise<void> {
    const mail = event.payload as QueuedMail;
    if (event.kind !== MAIL_KIND || mail.origin !== TESTER_MAIL_ORIGIN) return;
    await this.safely(() => this.notices.refused(Number(mail.context?.appId), mail.to, event.error));
  }

  private async safely(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.logger.error(`Tester notice: ${(err as Error)?.stack ?? err}`);
    }
  }
}
