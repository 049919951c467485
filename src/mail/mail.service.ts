import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { RelayConfig } from '../config/relay-config';
import type { MailMessage } from './mail-messages';
import { MailRefused } from './mail-refused';

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
      await this.deliver(to, message);
      this.logger.log(`Sent the "${message.kind}" message`);
      return true;
    } catch (err) {
      const why = (err as Error).message;
      this.logger[err instanceof MailRefused ? 'warn' : 'error'](
        err instanceof MailRefused ? `SMTP server did not accept the "${message.kind}" message for its recipient: ${why}` : `Sending the "${message.kind}" message failed: ${why}`,
      );
      return false;
    }
  }

  /**
   * Sends, or throws: a MailRefused (an OutboundRefusal with the SMTP reply code: 5xx is final, a
   * bounce or refusal; 4xx is tried again) when the server refused the recipient or the message,
   * anything else for a network failure. The outbox's mail sender calls this.
   */
  async deliver(to: string, message: Pick<MailMessage, 'subject' | 'text' | 'html'> & { headers?: Record<string, string> }): Promise<void> {
    if (!this.config.smtp) throw new MailRefused(503, 'SMTP is not configured on this relay (SVC_SMTP_HOST)');
    let info: { accepted?: unknown[]; rejected?: unknown[]; response?: string };
    try {
      info = await (await this.transporter()).sendMail({ from: this.config.smtp.from, to, subject: message.subject, text: message.text, html: message.html, headers: message.headers });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      if (typeof code === 'number') throw new MailRefused(code, (err as Error).message);
      throw err;
    }
    const accepted = ((info.accepted ?? []) as Array<string | { address: string }>).map((a) => (typeof a === 'string' ? a : a.address).toLowerCase());
    if (!accepted.includes(to.toLowerCase())) throw new MailRefused(550, `the SMTP server did not accept the recipient${info.response ? `: ${info.response}` : ''}`);
  }

  async onModuleDestroy(): Promise<void> {
    (await this.transport?.catch(() => null))?.close();
  }
}
