/**
 * How long a test waits for an event the relay owes it (a socket closed, a stream ended). Not a
 * speed claim: the relay does these at once, so this only tells "never" from "late on a busy 2-core
 * machine", and a test that asserts a speed belongs in bench/ (docs/robustness.md, issue 40).
 */
export const EVENT_DEADLINE_MS = 10_000;

/** `promise`'s value, or a failure naming `what` when it has not settled within `ms`. */
export function within<T>(what: string, promise: Promise<T>, ms = EVENT_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
