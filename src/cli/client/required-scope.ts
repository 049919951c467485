import { RelayRefusedError } from '../../relay-client/client-errors';

/** The relay's answer to a PAT without the route's scope (spec §6: 403 `Insufficient scope`); it names no scope. */
const INSUFFICIENT_SCOPE = 'insufficient scope';

/**
 * Wraps a client command's action so that the relay's scope refusal says which scope the command
 * needs (`view`, `builds:write`, as listed in the dashboard's token form). Other refusals, a
 * Viewer's included, pass through untouched: their message already says what is wrong.
 */
export function requiresScope<A extends unknown[]>(scopes: string[], action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (err instanceof RelayRefusedError && err.status === 403 && err.relayMessage.trim().toLowerCase() === INSUFFICIENT_SCOPE) {
        const needed = scopes.map((s) => `\`${s}\``).join(' or ');
        throw err.withHint(`This command needs a token with the ${needed} scope: create one in the dashboard (account menu → Access tokens).`);
      }
      throw err;
    }
  };
}
