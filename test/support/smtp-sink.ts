import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The whole message as the relay sent it (headers and MIME parts, transfer encodings undone). */
  raw: string;
  subject: string;
}

/**
 * A real SMTP server on 127.0.0.1 (random port) that keeps what it receives, for tests that read
 * the relay's e-mails. `rejectRecipients` makes it refuse every RCPT TO, like a failing server.
 */
export class SmtpSink {
  readonly messages: ReceivedMail[] = [];
  private server!: SMTPServer;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor(private readonly options: { rejectRecipients?: boolean } = {}) {}

  /** `port`: a given one (a test that pointed a relay at it before it listened), else a free one. */
  async start(port = 0): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (this.options.rejectRecipients) {
          const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
          err.responseCode = 550;
          return callback(err);
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8'));
          const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
          this.messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, subject });
          this.waiters.splice(0).forEach((wake) => wake());
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** SVC_* variables that point a test relay at this server. */
  env(): Record<string, string> {
    return { SVC_SMTP_HOST: '127.0.0.1', SVC_SMTP_PORT: String(this.port), SVC_SMTP_FROM: 'relay@example.com' };
  }

  /** The latest message to this address, waiting briefly for it to arrive. */
  async lastTo(address: string, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.messages].reverse().find((m) => m.to.includes(address));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no e-mail to ${address} arrived`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Undoes quoted-printable (soft line breaks and =XX), enough to read links out of a message. */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first link in a message that points at `path` (e.g. `/invite`). */
export function linkIn(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`https?://[^\\s"<>]+${path.replace('/', '\\/')}\\?token=[0-9a-f]{64}`).exec(mail.raw);
  if (!match) throw new Error(`no ${path} link in the e-mail:\n${mail.raw}`);
  return match[0];
}
