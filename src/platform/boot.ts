import { installPieces } from './install-pieces';
import { pieces as v8 } from './v8';

/**
 * The 'boot' phase (piece.ts): V8's pieces only, read from their own list, not the engine room's
 * whole one (index.ts), which loads ~400 modules; V8 settles things at the first growth of a young
 * heap (its memory reducer's first schedule, memory-reducer.ts) while the first modules load, so
 * a 'boot' piece must be read and installed before them. Every 'boot' piece is a V8 one: the
 * fences spec says so.
 */
export function installBootPieces(): void {
  installPieces(v8, 'boot', null);
}
