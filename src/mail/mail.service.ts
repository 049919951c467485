import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { RelayConfig } from '../config/relay-config';
import type { MailMessage } from './mail-messages';

/** How long an unresponsive SMTP server may hold up the request that sends the message. */
const SMTP_TIMEOUT_MS = 10_000;

/**
 * Sends e-mail through the configured SMTP server (nodemailer). `send` resolves true only when
 * the server accepted the message for the recipient; any failure is logged and resolves false, so
 * a broken mail server never fails the request that wanted to send. nodemailer is loaded with the
 * first message, not at start-up: a relay without SMTP never needs it (docs/decisions.md#item-13).
 */
@Injectable()
export class MailService implements OnModuleDestroy {
  private readonly logger = new Logger('Mail');
  private transport: Promise<Transporter> | null = null;

  constructor(private readonly config: RelayConfig) {}

  get configured(): boolean {
    return this.config.smtp !== null;
  }

  private transporter(): Promise<Transporter> {
    const smtp = this.config.smtp!;
    this.transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      }),
    );
    return this.transport;
  }

  async send(to: string, message: MailMessage): Promise<boolean> {
    if (!this.config.smtp) return false;
    try {
      const info = await (await this.transporter()).sendMail({
        from: this.config.smtp.from,
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      const accepted = ((info.accepted ?? []) as Array<string | { address: string }>).map((a) =>
        (typeof a === 'string' ? a : a.address).toLowerCase(),
      );
      if (!accepted.includes(to.toLowerCase())) {
        this.logger.warn(`SMTP server did not accept the "${message.kind}" message for its recipient`);
        return false;
      }
      this.logger.log(`Sent the "${message.kind}" message`);
      return true;
    } catch (err) {
      this.logger.error(`Sending the "${message.kind}" message failed: ${(err as Error).message}`);
      return false;
    }
  }

  async onModuleDestroy(): Promise<void> {
    (await this.transport?.catch(() => null))?.close();
  }
}
