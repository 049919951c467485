import { randomUUID } from 'node:crypto';
import { ClusterSeal, FRESH_FOR_MS } from './cluster-seal';

describe('ClusterSeal', () => {
  const secret = Buffer.from('s'.repeat(32));
  let now = 1_750_000_000_000;
  const clock = () => now;
  const sender = () => new ClusterSeal(secret, randomUUID(), clock);
  const receiver = () => new ClusterSeal(secret, randomUUID(), clock);
  const body = (text: string) => [Buffer.from(text)];

  it('opens what an instance with the same secret sealed for the same channel, body untouched', () => {
    const sealed = sender().seal('svc:rpc:request:x', [Buffer.from('{"a":'), Buffer.from('1}')]);
    expect(receiver().open('svc:rpc:request:x', sealed)).toEqual({ body: Buffer.from('{"a":1}') });
  });

  it.each([
    ['unsigned', () => Buffer.from('{"id":"1","method":"tap"}')],
    ['signed with another secret', () => new ClusterSeal(Buffer.from('t'.repeat(32)), randomUUID(), clock).seal('c', body('{}'))],
    ['signed for another channel', () => sender().seal('other', body('{}'))],
    [
      'altered after signing',
      () => {
        const sealed = sender().seal('c', body('{"method":"screenshot"}'));
        sealed[sealed.length - 3] ^= 1;
        return sealed;
      },
    ],
  ])('refuses a message %s', (_case, message) => {
    expect(receiver().open('c', message())).toEqual({ refused: expect.stringMatching(/bad signature|too short/) });
  });

  it('refuses a replay, and a correctly signed message older or newer than the freshness window', () => {
    const from = sender();
    const to = receiver();
    const first = from.seal('c', body('1'));
    const second = from.seal('c', body('2'));
    expect(to.open('c', first)).toEqual({ body: Buffer.from('1') });
    expect(to.open('c', second)).toEqual({ body: Buffer.from('2') });
    expect(to.open('c', first)).toEqual({ refused: 'replayed' });
    expect(to.open('c', second)).toEqual({ refused: 'replayed' });

    const old = from.seal('c', body('3'));
    now += FRESH_FOR_MS + 1;
    expect(receiver().open('c', old)).toEqual({ refused: 'stale or from the future' });
    now -= 2 * (FRESH_FOR_MS + 1);
    expect(receiver().open('c', old)).toEqual({ refused: 'stale or from the future' });
  });
});
