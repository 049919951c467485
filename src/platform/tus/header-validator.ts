type HeaderValidator = typeof import('@tus/server/dist/validators/HeaderValidator');
export type TusHeaderValidator = HeaderValidator['validateHeader'];

/**
 * @tus/server's own check of a tus request header, the one tus.handle() makes: run before it so
 * that its refusal is the relay's JSON. Not re-exported by the package's index, hence the deep
 * path (fenced: tus/index.ts). Loaded on the first call, as @tus/server itself is.
 */
export function tusHeaderValidator(): TusHeaderValidator {
  return (require('@tus/server/dist/validators/HeaderValidator') as HeaderValidator).validateHeader;
}
