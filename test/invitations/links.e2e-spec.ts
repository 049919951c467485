import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** inviteUrl / resetUrl rules (spec §4 Team): tunnel URL, else SVC_RELAY_URL; never localhost; never the Host header. */
describe('links in invitations and reset messages', () => {
  async function linksFor(env: Record<string, string>, headers: Record<string, string> = {}) {
    const relay: TestRelay = await startTestRelay(env);
    try {
      const members = new MemberFactory(relay);
      const admin = await members.admin();
      const dev = await members.member('Developer');
      const invite = members.as(admin, 'post', '/api/v1/team/invite');
      const reset = members.as(admin, 'post', `/api/v1/team/members/${dev.id}/send-reset`);
      for (const [name, value] of Object.entries(headers)) {
        invite.set(name, value);
        reset.set(name, value);
      }
      const inv = await invite.send({ role: 'QA' }).expect(201);
      const rst = await reset.expect(200);
      return { inviteUrl: inv.body.inviteUrl, inviteToken: inv.body.token, resetUrl: rst.body.resetUrl, resetToken: rst.body.token };
    } finally {
      await relay.close();
    }
  }

  it('uses SVC_RELAY_URL when there is no tunnel', async () => {
    const links = await linksFor({ SVC_RELAY_URL: 'https://relay.example.com' });
    expect(links.inviteUrl).toBe(`https://relay.example.com/invite?token=${links.inviteToken}`);
    expect(links.resetUrl).toBe(`https://relay.example.com/reset-password?token=${links.resetToken}`);
  });

  it("prefers the tunnel's public URL", async () => {
    const links = await linksFor({ SVC_RELAY_URL: 'https://relay.example.com', SVC_TUNNEL_URL: 'https://abc.trycloudflare.com' });
    expect(links.inviteUrl).toBe(`https://abc.trycloudflare.com/invite?token=${links.inviteToken}`);
    expect(links.resetUrl).toBe(`https://abc.trycloudflare.com/reset-password?token=${links.resetToken}`);
  });

  // One relay per case (each its own test): on PostgreSQL a relay's start creates and migrates a database.
  it.each(['http://localhost:8080', 'http://127.0.0.1:8080', 'http://0.0.0.0:8080', 'http://[::1]:8080'])(
    'is null when the only candidate is %s',
    async (url) => {
      const links = await linksFor({ SVC_RELAY_URL: url });
      expect({ url, ...links }).toEqual(expect.objectContaining({ url, inviteUrl: null, resetUrl: null }));
    },
  );

  it('is null when there is no candidate', async () => {
    const none = await linksFor({});
    expect(none.inviteUrl).toBeNull();
    expect(none.resetUrl).toBeNull();
  });

  it('a localhost tunnel falls through to a usable relay URL', async () => {
    const fallback = await linksFor({ SVC_TUNNEL_URL: 'http://localhost:4040', SVC_RELAY_URL: 'http://192.168.1.20:8080' });
    expect(fallback.inviteUrl).toBe(`http://192.168.1.20:8080/invite?token=${fallback.inviteToken}`);
  });

  const forged = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', Forwarded: 'host=evil.example;proto=https' };

  it('never takes the host from Host, X-Forwarded-Host or Forwarded (with SVC_RELAY_URL)', async () => {
    const withUrl = await linksFor({ SVC_RELAY_URL: 'https://relay.example.com', SVC_TRUST_PROXY: 'true' }, forged);
    expect(withUrl.inviteUrl).toBe(`https://relay.example.com/invite?token=${withUrl.inviteToken}`);
    expect(withUrl.resetUrl).toBe(`https://relay.example.com/reset-password?token=${withUrl.resetToken}`);
  });

  it('never takes the host from Host, X-Forwarded-Host or Forwarded (without a relay URL: null)', async () => {
    const without = await linksFor({ SVC_TRUST_PROXY: 'true' }, forged);
    expect(without.inviteUrl).toBeNull();
    expect(without.resetUrl).toBeNull();
  });
});
