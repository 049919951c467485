import type { Platform } from '../../app-catalogue/platform';
import type { GateChecklist } from '../../release-gate/release-gate.service';
import { inlineText } from '../markdown/inert-text';
import type { StatusState } from '../outbox/forge-status.entity';
import { clip, DesiredStatus, ReviewedBuild } from './commit-status';

/** The release gate's status context: one a branch-protection rule can require (docs/release-gate.md). */
export const RELEASE_GATE_CONTEXT = 'svc/release-gate';

const STATE: Record<string, StatusState> = { passed: 'success', failed: 'failure', pending: 'pending' };
const MARK = { met: '✅', unmet: '❌', waiting: '⏳' } as const;

/**
 * `svc/release-gate` of a commit: the gates of its newest build per platform (builds without a
 * policy aside). Failure when any failed, pending when any is pending, success when all passed;
 * none when no build of the commit has a gate. The summary lists every rule, met or not, with links.
 */
export function gateStatus(builds: { build: ReviewedBuild; gate: GateChecklist | null }[]): DesiredStatus | null {
  const newest = new Map<Platform, { build: ReviewedBuild; gate: GateChecklist | null }>();
  for (const entry of builds) {
    const seen = newest.get(entry.build.platform);
    if (!seen || entry.build.id > seen.build.id) newest.set(entry.build.platform, entry);
  }
  const gated = [...newest.values()]
    .filter((e): e is { build: ReviewedBuild; gate: GateChecklist } => !!e.gate && e.gate.state !== 'none')
    .sort((a, b) => a.build.platform.localeCompare(b.build.platform));
  if (!gated.length) return null;
  const states = gated.map((e) => STATE[e.gate.state]);
  const state: StatusState = states.includes('failure') ? 'failure' : states.includes('pending') ? 'pending' : 'success';
  const deciding = gated.find((e) => STATE[e.gate.state] === state) ?? gated[gated.length - 1];
  const description = gated.length === 1 ? deciding.gate.description : gated.map((e) => `${e.build.platform}: ${e.gate.description.replace(/^Release gate /, '')}`).join('; ');
  return {
    context: RELEASE_GATE_CONTEXT,
    buildId: deciding.build.id,
    state,
    description: clip(description),
    targetUrl: deciding.build.pageUrl,
    summary: gated.map((e) => checklistOf(e.build, e.gate)).join('\n\n'),
  };
}

function checklistOf(build: ReviewedBuild, gate: GateChecklist): string {
  const name = build.pageUrl ? `[${inlineText(build.name)}](${build.pageUrl})` : inlineText(build.name);
  const rows = gate.checks.map((c) => `| ${MARK[c.outcome]} | ${inlineText(c.label)} | ${inlineText(c.detail)} | ${c.evidence ? `[evidence](${c.evidence})` : '—'} |`);
  return [`**${name}** (${build.platform}): release gate ${gate.state}`, '', '| | Rule | Detail | Evidence |', '|---|---|---|---|', ...rows].join('\n');
}
