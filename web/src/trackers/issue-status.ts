import type { BuildIssue } from './queries';

/** How the build page words an issue: its delivery while not filed, then the tracker's status; closed while Rejected said so. */
export function issueStatusText(issue: BuildIssue): string {
  if (issue.delivery === 'failed') return `not filed: ${issue.lastError ?? 'unknown error'}`;
  if (issue.delivery === 'queued') return issue.lastError ? `being filed (last try: ${issue.lastError})` : 'being filed';
  if (issue.closedWhileRejected) return `${issue.status ?? 'closed'}, closed while the build was Rejected`;
  return issue.status ?? (issue.closed ? 'closed' : 'open');
}
