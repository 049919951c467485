import type { Response } from 'supertest';
import { LOGIN_MAX_FAILURES } from '../../src/auth/login-throttle.service';
import { TEST_PASSWORD } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

const LOGIN = '/api/v1/auth/login';

/**
 * A burst of sign-ins beyond what the password workers can hash (issue 42): one worker at bcrypt
 * cost 12 checks a few passwords a second, so most of a burst of 60 would wait seconds. A sign-in
 * that would queue longer than a second is refused at once with 503 and Retry-After, the refusal
 * is not counted as a guess by the brake, and the rest of the relay keeps answering.
 */
describe('sign-ins beyond what the password workers can hash', () => {
  const ctx = useTestRelay({ SVC_BCRYPT_COST: '12', SVC_PASSWORD_WORKERS: '1' });

  it('refuses what would queue past a second with 503 and Retry-After, counts no refusal as a guess, and keeps serving', async () => {
    const member = await ctx.members.member('QA');
    // Sets the workers' pace: an idle relay admits everything, whatever the cost.
    await ctx.relay.http().post(LOGIN).send({ email: member.email, password: TEST_PASSWORD }).expect(200);

    const order: string[] = [];
    let firstRefusal!: () => void;
    const refused = new Promise<void>((resolve) => (firstRefusal = resolve));
    const send = (label: string, email: string, password: string) =>
      ctx.relay
        .http()
        .post(LOGIN)
        .send({ email, password })
        .then((res: Response) => {
          order.push(label);
          if (res.status === 503) firstRefusal();
          return res;
        });
    const burst = Array.from({ length: 60 }, (_, i) => send('burst', `nobody-${i}@example.com`, 'wrong password'));
    await refused;
    // While the workers are behind: wrong passwords for a real member, and a read that needs no hashing.
    const guesses = Array.from({ length: LOGIN_MAX_FAILURES + 1 }, () => send('guess', member.email, 'wrong password'));
    const health = ctx.relay
      .http()
      .get('/api/v1/health')
      .then((res: Response) => (order.push('health'), res));
    const answers = await Promise.all([...burst, ...guesses]);
    expect((await health).body).toMatchObject({ status: 'ok' });

    const busy = answers.filter((res) => res.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) {
      expect(res.body).toEqual({ error: expect.stringMatching(/^The relay is busy checking passwords; try again in \d+ s\.$/) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Everything else was checked: a wrong password is 401, never a slow 200 or a 5xx of another kind.
    expect(answers.filter((res) => res.status !== 503).map((res) => res.status)).toEqual(answers.filter((res) => res.status !== 503).map(() => 401));
    // The read was answered before the last checked sign-in: the queue held nothing but sign-ins.
    expect(order.indexOf('health')).toBeLessThan(order.length - 1);

    // Only the guesses that were checked count toward the brake; sent while the workers were behind,
    // some were refused, so fewer than all of them counted.
    const guessed = answers.slice(burst.length).map((res) => res.status);
    expect(guessed.filter((status) => status === 503).length).toBeGreaterThan(0);
    const counted = guessed.filter((status) => status === 401).length;
    const after = await ctx.relay.http().post(LOGIN).send({ email: member.email, password: TEST_PASSWORD });
    expect(after.status).toBe(counted >= LOGIN_MAX_FAILURES ? 429 : 200);
  });
});
