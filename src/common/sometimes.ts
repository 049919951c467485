/**
 * A value now, or a promise of it. For the few hot paths whose common case has its answer at hand
 * (a credential held by its cache): each async function is a promise and a microtask a request, and
 * on PostgreSQL under writes an async-hook call per promise (issue 42, bench:promises). A caller that
 * awaits gets the same either way; one that must have a promise wraps the call in an async function.
 */
export type Sometimes<T> = T | Promise<T>;

/** `next` of the value, now if it is here, else once it settles. */
export function andThen<T, R>(value: Sometimes<T>, next: (value: T) => Sometimes<R>): Sometimes<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
