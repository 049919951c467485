import { tusHeaderValidator, type TusHeaderValidator } from '../../platform/tus/header-validator';

export type TusModules = typeof import('@tus/server') & typeof import('@tus/file-store') & { validateHeader: TusHeaderValidator };
let loadedTus: TusModules | null = null;

/**
 * @tus/server and @tus/file-store, loaded with the first resumable upload or the first sweep that
 * finds one: a relay whose clients never use tus does not load them (start-up time and idle memory,
 * docs/decisions.md#s1).
 */
export function tusModules(): TusModules {
  return (loadedTus ??= {
    ...(require('@tus/server') as typeof import('@tus/server')),
    ...(require('@tus/file-store') as typeof import('@tus/file-store')),
    // Not re-exported by the package index; the same check tus.handle() makes, run first so its refusal is JSON.
    validateHeader: tusHeaderValidator(),
  });
}
