import { OutboundRefusal } from '../outbox/retry-policy';

/** The SMTP server refused (its reply code kept): a 4xx reply is tried again later, a 5xx (a bounce, a refusal) is final. */
export class MailRefused extends OutboundRefusal {
  constructor(replyCode: number, message: string) {
    super(replyCode, new Headers(), `SMTP ${replyCode}: ${message}`, replyCode >= 400 && replyCode < 500);
  }
}
