import { MemberFactory } from './factory';
import { startTestRelay, TestRelay, TestRelayOptions } from './test-relay';

export interface RelayUnderTest {
  relay: TestRelay;
  members: MemberFactory;
}

/**
 * Boots one relay for the enclosing describe block (beforeAll) and closes it afterwards (afterAll).
 * Read `ctx.relay` / `ctx.members` inside tests, once the hooks have run.
 */
export function useTestRelay(env: Record<string, string> = {}, options: TestRelayOptions = {}): RelayUnderTest {
  const ctx = {} as RelayUnderTest;
  beforeAll(async () => {
    ctx.relay = await startTestRelay(env, options);
    ctx.members = new MemberFactory(ctx.relay);
  });
  afterAll(async () => {
    await ctx.relay?.close();
  });
  return ctx;
}

/** Runs `body` against a relay of its own, closed afterwards even when the body fails. */
export async function withTestRelay<T>(
  env: Record<string, string>,
  body: (relay: TestRelay, members: MemberFactory) => Promise<T>,
  options: TestRelayOptions = {},
): Promise<T> {
  const relay = await startTestRelay(env, options);
  try {
    return await body(relay, new MemberFactory(relay));
  } finally {
    await relay.close();
  }
}
