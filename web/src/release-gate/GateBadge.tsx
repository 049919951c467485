import styles from './release-gate.module.css';

export const GATE_FILTERS = ['failed', 'pending', 'passed'] as const;
export type GateFilter = (typeof GATE_FILTERS)[number];

const MARK: Record<string, string> = { passed: '✅', failed: '❌', pending: '⏳' };

/** An inbox row's release-gate state (docs/release-gate.md); nothing when no policy applies or it was never evaluated. */
export function GateBadge({ state }: { state: string | null }) {
  if (!state || !MARK[state]) return null;
  return (
    <span className={styles.gateBadge} role="img" aria-label={`Release gate ${state}`} title={`Release gate ${state}`}>
      {MARK[state]}
    </span>
  );
}
