import { createServer } from 'node:net';
import { MemberFactory } from '../support/factory';
import { SmtpSink } from '../support/smtp-sink';
import { startTestRelay } from '../support/test-relay';

/** emailSent is true only when the SMTP server accepted the message; failures never become a 500. */
describe('e-mail delivery failures', () => {
  async function inviteAndReset(env: Record<string, string>) {
    const relay = await startTestRelay(env);
    try {
      const members = new MemberFactory(relay);
      const admin = await members.admin();
      const dev = await members.member('Developer');
      const invite = await members.as(admin, 'post', '/api/v1/team/invite').send({ email: 'someone@example.com' });
      const reset = await members.as(admin, 'post', `/api/v1/team/members/${dev.id}/send-reset`);
      const mailLogs = relay.logger.buffer.tail(500).filter((line) => line.includes('"Mail"'));
      return { invite, reset, mailLogs };
    } finally {
      await relay.close();
    }
  }

  it('SMTP not configured: emailSent false', async () => {
    const { invite, reset } = await inviteAndReset({});
    expect(invite.status).toBe(201);
    expect(invite.body.emailSent).toBe(false);
    expect(reset.status).toBe(200);
    expect(reset.body.emailSent).toBe(false);
  });

  it('SMTP server refuses the recipient: emailSent false, still 201/200', async () => {
    const smtp = await new SmtpSink({ rejectRecipients: true }).start();
    try {
      const { invite, reset, mailLogs } = await inviteAndReset(smtp.env());
      expect(mailLogs.some((line) => /failed|did not accept/.test(line))).toBe(true);
      expect(invite.status).toBe(201);
      expect(invite.body).toEqual(expect.objectContaining({ emailSent: false, token: expect.any(String) }));
      expect(reset.status).toBe(200);
      expect(reset.body.emailSent).toBe(false);
      expect(smtp.messages).toHaveLength(0);
    } finally {
      await smtp.close();
    }
  });

  it('SMTP server unreachable (closed port): emailSent false, still 201/200', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const { invite, reset, mailLogs } = await inviteAndReset({ SVC_SMTP_HOST: '127.0.0.1', SVC_SMTP_PORT: String(port) });
    expect(mailLogs.some((line) => /failed/.test(line))).toBe(true);
    expect(mailLogs.join('\n')).not.toContain(invite.body.token);
    expect(invite.status).toBe(201);
    expect(invite.body.emailSent).toBe(false);
    expect(reset.status).toBe(200);
    expect(reset.body.emailSent).toBe(false);
  });
});
