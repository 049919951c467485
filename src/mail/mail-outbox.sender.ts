import { Injectable, OnModuleInit } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { redactSecrets } from '../logging/mask-secrets';
import { OutboxService } from '../outbox/outbox.service';
import type { OutboxSender } from '../outbox/outbox-sender';
import { MailService } from './mail.service';

export const MAIL_KIND = 'mail';

/** A queued e-mail: what the outbox keeps until the SMTP server takes it. */
export interface QueuedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe for testers' notices). */
  headers?: Record<string, string>;
  /** Who queued it, to be told of a bounce (`testers`), with what it needs to know which. */
  origin?: string;
  context?: Record<string, unknown>;
}

/** E-mail through the outbox (docs/integrations.md "One delivery path"): retried while the server answers 4xx or is unreachable. */
@Injectable()
export class MailOutboxSender implements OutboxSender, OnModuleInit {
  readonly kind = MAIL_KIND;

  constructor(
    private readonly mail: MailService,
    private readonly outbox: OutboxService,
    private readonly config: RelayConfig,
  ) {}

  onModuleInit(): void {
    this.outbox.register(this);
  }

  /** Queues the e-mail in the caller's transaction. */
  queue(mail: QueuedMail): Promise<void> {
    return this.outbox.enqueue(MAIL_KIND, MAIL_KIND, mail);
  }

  async send(payload: unknown): Promise<void> {
    const mail = payload as QueuedMail;
    await this.mail.deliver(mail.to, mail);
  }

  redact(text: string): string {
    return redactSecrets(text, [this.config.smtp?.pass]);
  }
}
