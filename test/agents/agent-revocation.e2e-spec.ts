import { EventEmitter2 } from '@nestjs/event-emitter';
import { DAY_MS } from '../../src/common/time';
import { TokensService } from '../../src/tokens/tokens.service';
import { MemberDeletedEvent } from '../../src/users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../../src/users/events/member-role-changed.event';
import { UsersService } from '../../src/users/users.service';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { AGENT_PATH, agentToken, TestPeer, upgradeRefusal, wsUrl } from './agent-kit';

/**
 * Live revocation (agent-protocol §1): closes within moments, driven by events. Role changes and
 * deletions are emitted here the way the team module emits them (PATCH/DELETE /team/members are
 * being built on another branch); password resets go through TokensService.revokeAllFor, the call
 * the reset flow makes.
 */
describe('agent revocation', () => {
  let relay: TestRelay;
  let members: MemberFactory;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_AGENT_PING_INTERVAL_MS: '100' });
    members = new MemberFactory(relay);
  });
  afterAll(() => relay.close());

  async function connectedAgent(name: string, issuer?: TestMember, expiresInDays?: number) {
    const member = issuer ?? (await members.member('Admin'));
    const token = await agentToken(members, member, expiresInDays);
    return { member, token, peer: await TestPeer.agent(relay, token, name) };
  }

  const withinTwoSeconds = <T>(promise: Promise<T>) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('not closed')), 2000)));
    return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
  };

  it('closes with 4001 the moment the token is revoked (DELETE /tokens/:id), and the token no longer connects', async () => {
    const { member, token, peer } = await connectedAgent('revoked');
    const bystander = await connectedAgent('bystander', member);
    const list = await members.as(member, 'get', '/api/v1/tokens').expect(200);
    const id = Math.min(...list.body.map((t: { id: number }) => t.id)); // the first token issued: the 'revoked' agent's
    await members.as(member, 'delete', `/api/v1/tokens/${id}`).expect(204);
    expect((await withinTwoSeconds(peer.closed)).code).toBe(4001);
    expect(bystander.peer.socket.readyState).toBe(bystander.peer.socket.OPEN);
    const again = await upgradeRefusal(wsUrl(relay, AGENT_PATH), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': 'x' });
    expect(again.status).toBe(401);
    bystander.peer.close();
  });

  it("closes with 4001 when the issuer's password is reset (all their PATs revoked)", async () => {
    const { member, peer } = await connectedAgent('reset');
    await relay.app.get(TokensService).revokeAllFor(member.id, 'password_reset');
    expect((await withinTwoSeconds(peer.closed)).code).toBe(4001);
  });

  it('closes with 4001 when the token expires', async () => {
    const { peer } = await connectedAgent('expiring', undefined, 1);
    relay.clock.advance(DAY_MS - 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.socket.readyState).toBe(peer.socket.OPEN);
    relay.clock.advance(60_000);
    expect((await withinTwoSeconds(peer.closed)).code).toBe(4001);
  });

  it('closes with 4003 when the issuer stops being an Admin, and the reconnect is refused with 403', async () => {
    const { member, token, peer } = await connectedAgent('demoted');
    await relay.app.get(UsersService).update(member.id, { role: 'QA' });
    relay.app.get(EventEmitter2).emit(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(member.id, 'Admin', 'QA'));
    expect((await withinTwoSeconds(peer.closed)).code).toBe(4003);
    const again = await upgradeRefusal(wsUrl(relay, AGENT_PATH), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': 'demoted' });
    expect(again.status).toBe(403);
  });

  it('keeps the agent when an Admin issuer stays Admin', async () => {
    const { member, peer } = await connectedAgent('still-admin');
    relay.app.get(EventEmitter2).emit(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(member.id, 'Admin', 'Admin'));
    await new Promise((r) => setTimeout(r, 200));
    expect(peer.socket.readyState).toBe(peer.socket.OPEN);
    peer.close();
  });

  it('closes with 4003 when the issuer is deleted, even if the token revocation event comes first', async () => {
    const { member, peer } = await connectedAgent('deleted');
    const events = relay.app.get(EventEmitter2);
    await relay.app.get(TokensService).revokeAllFor(member.id, 'member_deleted');
    events.emit(MemberDeletedEvent.eventName, new MemberDeletedEvent(member.id));
    expect((await withinTwoSeconds(peer.closed)).code).toBe(4003);
  });
});
