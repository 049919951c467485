import request from 'supertest';
import type { Role } from '../../src/common/auth/role';
import { UsersService } from '../../src/users/users.service';
import type { TestRelay } from './test-relay';

export const TEST_PASSWORD = 'correct horse battery';

export interface TestMember {
  id: number;
  email: string;
  password: string;
  role: Role;
  /** `svc_token=<value>`, ready for a Cookie header. */
  cookie: string;
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete' | 'head' | 'options';

/**
 * Members per role on a test relay, each signed in through the real /auth/login. The first Admin
 * is created through /auth/init from loopback; the others through UsersService (the same code the
 * team module uses), since invitations belong to another feature.
 */
export class MemberFactory {
  private counter = 0;
  private adminMember: TestMember | null = null;

  constructor(private readonly relay: TestRelay) {}

  async admin(): Promise<TestMember> {
    if (this.adminMember) return this.adminMember;
    const email = 'admin@example.com';
    await this.relay.http().post('/api/v1/auth/init').send({ email, password: TEST_PASSWORD }).expect(201);
    const user = await this.relay.app.get(UsersService).findByEmail(email);
    this.adminMember = { id: user!.id, email, password: TEST_PASSWORD, role: 'Admin', cookie: await this.login(email) };
    return this.adminMember;
  }

  /** A new member with this role (an Admin is created first when the relay has no account yet). */
  async member(role: Role, email?: string): Promise<TestMember> {
    await this.admin();
    const address = email ?? `${role.toLowerCase()}-${++this.counter}@example.com`;
    const user = await this.relay.app.get(UsersService).create({ email: address, password: TEST_PASSWORD, role });
    return { id: user.id, email: address, password: TEST_PASSWORD, role, cookie: await this.login(address) };
  }

  async login(email: string, password = TEST_PASSWORD): Promise<string> {
    const res = await this.relay.http().post('/api/v1/auth/login').send({ email, password }).expect(200);
    return sessionCookieFrom(res.headers['set-cookie']);
  }

  /** Issues a PAT through POST /tokens for the member. */
  async pat(member: TestMember, scope?: string, expiresInDays?: number): Promise<string> {
    const res = await this.relay
      .http()
      .post('/api/v1/tokens')
      .set('Cookie', member.cookie)
      .send({ name: `pat-${++this.counter}`, scope, expires_in_days: expiresInDays })
      .expect(201);
    return res.body.token;
  }

  /** A request signed with the member's cookie. */
  as(member: TestMember, method: Method, path: string): request.Test {
    return this.relay.http()[method](path).set('Cookie', member.cookie);
  }

  /** A request signed with a PAT. */
  withPat(token: string, method: Method, path: string): request.Test {
    return this.relay.http()[method](path).set('Authorization', `Bearer ${token}`);
  }
}

export function sessionCookieFrom(setCookie: string[] | string | undefined): string {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const found = list.find((c) => c.startsWith('svc_token='));
  if (!found) throw new Error('no svc_token cookie was set');
  return found.split(';')[0];
}
