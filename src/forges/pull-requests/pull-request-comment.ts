import { stateOf } from '../status/commit-status';
import type { CommitBuild } from '../../builds/provenance/build-verdicts.service';

/** Marks the relay's comment (and lets a reader see where it comes from). */
export const COMMENT_MARKER = '<!-- svc-relay:pull-request-builds -->';

export interface CommentBuild extends CommitBuild {
  pageUrl: string | null;
  installUrl: string | null;
}

/**
 * The pull request's one comment (docs/integrations.md): a table of its builds (app, platform,
 * version, verdict with who decided, a link to the build page, an install link), newest first, and
 * each build's changelog ("what to test") below it.
 */
export function renderPullRequestComment(builds: CommentBuild[]): string {
  const newestFirst = [...builds].sort((a, b) => b.id - a.id);
  const rows = newestFirst.map((b) => {
    const build = b.pageUrl ? `[#${b.id}](${b.pageUrl})` : `#${b.id}`;
    const install = b.installUrl ? `[Install](${b.installUrl})` : '—';
    return `| ${cell(b.name)} | ${b.platform} | ${cell(versionOf(b))} | ${verdictOf(b)} | ${build} | ${install} |`;
  });
  const changelogs = newestFirst
    .filter((b) => b.provenance.changelog)
    .map((b) => `<details><summary>What to test in ${cell(b.name)} ${cell(versionOf(b))} (${b.platform}, #${b.id})</summary>\n\n${quote(b.provenance.changelog!)}\n\n</details>`);
  return [
    COMMENT_MARKER,
    '### Builds for review',
    '',
    '| App | Platform | Version | Verdict | Build | Install |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...(changelogs.length ? ['', ...changelogs] : []),
  ].join('\n');
}

function versionOf(build: CommitBuild): string {
  return [build.versionName, build.buildNumber && `(${build.buildNumber})`].filter(Boolean).join(' ') || '—';
}

function verdictOf(build: CommitBuild): string {
  const state = stateOf(build.status);
  const who = build.decidedBy ? ` by ${cell(build.decidedBy)}` : '';
  if (state === 'success') return `✅ Done${who}`;
  if (state === 'failure') return `❌ Rejected${who}`;
  return `⏳ ${build.status ?? 'Waiting for review'}`;
}

/** One table cell: no pipes or line breaks, no HTML. */
function cell(text: string): string {
  return text.replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');
}

/** The uploader's text as a quote, HTML taken literally. */
function quote(text: string): string {
  return text
    .replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!)
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}
