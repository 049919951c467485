import { Module } from '@nestjs/common';
import { MailService } from './mail.service';

/** Outgoing e-mail (invitations, password resets) over SMTP. */
@Module({ providers: [MailService], exports: [MailService] })
export class MailModule {}
