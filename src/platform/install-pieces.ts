import type { AnyPiece, Phase, Piece, PhaseTargets } from './piece';

/** The pieces of `pieces` in one phase, installed in the list's order; returns the target. */
export function installPieces<P extends Phase>(pieces: readonly AnyPiece[], phase: P, target: PhaseTargets[P]): PhaseTargets[P] {
  for (const piece of pieces) if (piece.phase === phase) (piece as Piece<P>).install?.(target);
  return target;
}
