import { inertBlock, inlineText } from '../markdown/inert-text';
import { flagListOf, stateOf } from '../status/commit-status';
import type { CommitBuild } from '../../builds/provenance/build-verdicts.service';
import { statusWords } from '../../builds/build-status';

/** Marks the relay's comment (and lets a reader see where it comes from). */
export const COMMENT_MARKER = '<!-- svc-relay:pull-request-builds -->';

export interface CommentBuild extends CommitBuild {
  pageUrl: string | null;
  installUrl: string | null;
  /** Commits since the app's last Done build (the forge's compare API), with that build's id; null when unknown. */
  changes: { baseBuildId: number; commits: { sha: string; title: string; url: string | null }[] } | null;
}

/** Commits listed per build in the comment; the build page shows them all. */
const COMMITS_SHOWN = 10;

/**
 * The pull request's one comment (docs/integrations.md): a table of its builds (app, platform,
 * version, verdict with who decided, how many flags its comparison raised, a link to the build
 * page, an install link), newest first, and below it each build's flags with their reasons and
 * changelog ("what to test"). Every uploader-supplied value is inert (../markdown/inert-text.ts):
 * inline ones escaped with mentions broken, the changelog a code block.
 */
export function renderPullRequestComment(builds: CommentBuild[]): string {
  const newestFirst = [...builds].sort((a, b) => b.id - a.id);
  const rows = newestFirst.map((b) => {
    const build = b.pageUrl ? `[#${b.id}](${b.pageUrl})` : `#${b.id}`;
    const install = b.installUrl ? `[Install](${b.installUrl})` : '—';
    return `| ${inlineText(b.name)} | ${b.platform} | ${inlineText(versionOf(b))} | ${verdictOf(b)} | ${b.flags.length ? `⚑ ${b.flags.length}` : '—'} | ${build} | ${install} |`;
  });
  const changelogs = newestFirst
    .filter((b) => b.provenance.changelog || b.changes || b.flags.length)
    .map((b) => {
      const parts = [
        b.flags.length ? flagListOf(b.name, b.platform, b.flags) : null,
        b.provenance.changelog ? inertBlock(b.provenance.changelog) : null,
        b.changes ? changesOf(b.changes) : null,
      ].filter(Boolean);
      return `<details><summary>What to test in ${inlineText(b.name)} ${inlineText(versionOf(b))} (${b.platform}, #${b.id})</summary>\n\n${parts.join('\n\n')}\n\n</details>`;
    });
  return [
    COMMENT_MARKER,
    '### Builds for review',
    '',
    '| App | Platform | Version | Verdict | Flags | Build | Install |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    ...(changelogs.length ? ['', ...changelogs] : []),
  ].join('\n');
}

/** "What changed since #12": the first commits, linked, and how many more. */
function changesOf(changes: NonNullable<CommentBuild['changes']>): string {
  const shown = changes.commits.slice(0, COMMITS_SHOWN).map((c) => `- ${c.url ? `[\`${c.sha.slice(0, 7)}\`](${c.url})` : `\`${c.sha.slice(0, 7)}\``} ${inlineText(c.title)}`);
  const more = changes.commits.length - shown.length;
  return [`What changed since #${changes.baseBuildId}:`, ...(shown.length ? shown : ['- no commits']), ...(more > 0 ? [`- … and ${more} more`] : [])].join('\n');
}

function versionOf(build: CommitBuild): string {
  return [build.versionName, build.buildNumber && `(${build.buildNumber})`].filter(Boolean).join(' ') || '—';
}

function verdictOf(build: CommitBuild): string {
  // The commit status's words (statusWords), with a mark: "✅ Done by Ann", "⏳ In Progress", "⏳ No status".
  const words = statusWords(build.status, build.decidedBy && inlineText(build.decidedBy));
  const state = stateOf(build.status);
  return `${state === 'success' ? '✅' : state === 'failure' ? '❌' : '⏳'} ${words}`;
}

