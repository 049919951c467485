import type * as Zod from 'zod';

/** zod's `z`, as a schema's builder gets it. */
export type ZodApi = typeof Zod.z;

/**
 * A schema of what instances tell each other through Redis, built on first use: zod (~95 modules)
 * then loads only in a relay that is clustered and reads such a message, not at every start
 * (issue 42). Modules declare `const fooSchema = clusterSchema((z) => z.object(…))` and check with
 * `fooSchema()`; the schema is built once.
 */
export function clusterSchema<S>(build: (z: ZodApi) => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build((require('zod') as typeof Zod).z));
}
