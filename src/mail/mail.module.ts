import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module';
import { MailOutboxSender } from './mail-outbox.sender';
import { MailService } from './mail.service';

/** Outgoing e-mail over SMTP: at once (invitations, password resets, which report emailSent) or through the outbox (testers' notices). */
@Module({ imports: [OutboxModule], providers: [MailService, MailOutboxSender], exports: [MailService, MailOutboxSender] })
export class MailModule {}
