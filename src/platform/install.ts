import { PIECES } from './index';
import { installPieces } from './install-pieces';
import type { Phase, PhaseTargets } from './piece';

/**
 * Installs the pieces of one phase, in the list's order; returns the target. Called from exactly one
 * place per phase (piece.ts, PhaseTargets), never from a constructor or a request handler.
 */
export function installPlatform<P extends Phase>(phase: P, target: PhaseTargets[P]): PhaseTargets[P] {
  return installPieces(PIECES, phase, target);
}
