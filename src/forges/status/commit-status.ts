import type { Platform } from '../../app-catalogue/platform';
import { NO_STATUS, statusWords, type BuildStatus } from '../../builds/build-status';
import type { CommitBuild } from '../../builds/provenance/build-verdicts.service';
import { inlineText, neutraliseMentions } from '../markdown/inert-text';
import type { StatusState } from '../outbox/forge-status.entity';

/** GitHub refuses longer descriptions; the others are shown cut near it anyway. */
export const MAX_DESCRIPTION = 140;

/** A build of the commit with what the status shows of it. */
export interface ReviewedBuild extends CommitBuild {
  /** First line of its newest comment, or null. */
  latestComment: string | null;
  /** Its page on the dashboard, or null when the relay has no public URL. */
  pageUrl: string | null;
}

/** One status to post for a commit. */
export interface DesiredStatus {
  context: string;
  buildId: number;
  state: StatusState;
  description: string;
  targetUrl: string | null;
  summary: string;
  /**
   * `svc/release-gate` only: the version of each build's gate it was made from (docs/release-gate.md
   * "The commit status"); the outbox never queues it behind a status made from a newer gate.
   */
  gateVersions?: Record<number, number>;
}

const STATE: Record<string, StatusState> = { Done: 'success', Rejected: 'failure' };

/** Done → success, Rejected → failure; Backlog, In Progress and no status → pending. */
export function stateOf(status: BuildStatus | null): StatusState {
  return (status && STATE[status]) ?? 'pending';
}

/**
 * The statuses a commit should show (docs/integrations.md "The status"). Per platform, the newest
 * build of the commit speaks. `<context>` is the commit's verdict as a whole: failure when any
 * platform's build is Rejected, success when every one is Done, else pending; so a team that builds
 * both platforms can require just it. When the commit has builds of more than one platform, each
 * also gets `<context> (<platform>)`, so each can be required on its own.
 */
export function desiredStatuses(context: string, builds: ReviewedBuild[]): DesiredStatus[] {
  const newest = new Map<Platform, ReviewedBuild>();
  for (const build of builds) {
    const seen = newest.get(build.platform);
    if (!seen || build.id > seen.id) newest.set(build.platform, build);
  }
  const platforms = [...newest.values()].sort((a, b) => a.platform.localeCompare(b.platform));
  if (!platforms.length) return [];
  const perPlatform = platforms.map((build) => ({
    context: `${context} (${build.platform})`,
    buildId: build.id,
    state: stateOf(build.status),
    description: clip(describe(build) + flagged(build)),
    targetUrl: build.pageUrl,
    summary: summaryOf([build]),
  }));
  if (platforms.length === 1) return [{ ...perPlatform[0], context }];
  const states = perPlatform.map((s) => s.state);
  const state: StatusState = states.includes('failure') ? 'failure' : states.every((s) => s === 'success') ? 'success' : 'pending';
  // The overall status links to the build that decides it: a rejected one, else one still waiting, else the newest.
  const deciding = platforms.find((b) => stateOf(b.status) === state) ?? platforms[platforms.length - 1];
  const aggregate: DesiredStatus = {
    context,
    buildId: deciding.id,
    state,
    description: clip(platforms.map((b) => `${b.platform}: ${short(b)}${b.flags.length ? ` (⚑ ${b.flags.length})` : ''}`).join('; ')),
    targetUrl: deciding.pageUrl,
    summary: summaryOf(platforms),
  };
  return [aggregate, ...perPlatform];
}

/** "Done by Ann: looks good", "Rejected by Bob: crashes on login", "In Progress", "No status": the status's own words (statusWords). */
function describe(build: ReviewedBuild): string {
  const who = statusWords(build.status, build.decidedBy);
  return stateOf(build.status) !== 'pending' && build.latestComment ? `${who}: ${build.latestComment}` : who;
}

/** " · ⚑ 2: <first reason>" after the verdict (issue 28): the description shows the flags when there are some. */
function flagged(build: ReviewedBuild): string {
  return build.flags.length ? ` · ⚑ ${build.flags.length}: ${build.flags[0]}` : '';
}

function short(build: ReviewedBuild): string {
  return statusWords(build.status);
}

/** One line, mentions made inert (the app name, a flag's reason and the newest comment are other people's text). */
export function clip(text: string): string {
  const one = neutraliseMentions(text.replace(/\s+/g, ' ').trim());
  return one.length <= MAX_DESCRIPTION ? one : `${one.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/** A check run's Markdown summary: app, version, verdict, reviewer, newest comment, links; then each build's flags. */
function summaryOf(builds: ReviewedBuild[]): string {
  return [tableOf(builds), ...builds.filter((b) => b.flags.length).map((b) => flagListOf(b.name, b.platform, b.flags))].join('\n\n');
}

/** "⚑ Flags of App (android):" and one reason per line (shared with the pull-request comment). */
export function flagListOf(name: string, platform: string, flags: string[]): string {
  return [`⚑ Flags of ${inlineText(name)} (${platform}):`, ...flags.map((reason) => `- ${inlineText(reason)}`)].join('\n');
}

function tableOf(builds: ReviewedBuild[]): string {
  const rows = builds.map((b) => {
    const version = [b.versionName, b.buildNumber && `(${b.buildNumber})`].filter(Boolean).join(' ') || '—';
    const name = b.pageUrl ? `[${inlineText(b.name)}](${b.pageUrl})` : inlineText(b.name);
    return `| ${name} | ${b.platform} | ${inlineText(version)} | ${verdictOf(b)} | ${inlineText(b.decidedBy ?? '—')} | ${inlineText(b.latestComment ?? '—')} |`;
  });
  return ['| App | Platform | Version | Verdict | Reviewer | Latest comment |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

function verdictOf(build: ReviewedBuild): string {
  const state = stateOf(build.status);
  return state === 'success' ? '✅ Done' : state === 'failure' ? '❌ Rejected' : `⏳ ${build.status ?? NO_STATUS}`;
}

/** The first non-blank line of a comment, for a one-line description. */
export function firstLine(text: string): string | null {
  return text.split(/\r?\n/).map((line) => line.trim()).find(Boolean) ?? null;
}
