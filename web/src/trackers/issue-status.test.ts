import { describe, expect, it } from 'vitest';
import { issueStatusText } from './issue-status';
import type { BuildIssue } from './queries';

const issue = (over: Partial<BuildIssue>): BuildIssue => ({
  id: 1,
  tracker: 'jira',
  title: 'Crash',
  delivery: 'filed',
  key: 'MOB-1',
  url: 'https://acme.atlassian.net/browse/MOB-1',
  status: 'In Progress',
  closed: false,
  closedWhileRejected: false,
  lastError: null,
  recordingId: null,
  createdAt: '2026-12-02T08:00:00.000Z',
  ...over,
});

describe('issueStatusText', () => {
  it("shows the tracker's status, and an issue closed while the build was Rejected as such", () => {
    expect(issueStatusText(issue({}))).toBe('In Progress');
    expect(issueStatusText(issue({ status: 'Done', closed: true }))).toBe('Done');
    expect(issueStatusText(issue({ status: 'Done', closed: true, closedWhileRejected: true }))).toBe('Done, closed while the build was Rejected');
  });

  it('shows the delivery until the issue is filed, with the last error', () => {
    expect(issueStatusText(issue({ delivery: 'queued', key: null, status: null }))).toBe('being filed');
    expect(issueStatusText(issue({ delivery: 'queued', key: null, status: null, lastError: 'HTTP 503' }))).toBe('being filed (last try: HTTP 503)');
    expect(issueStatusText(issue({ delivery: 'failed', key: null, status: null, lastError: 'HTTP 404' }))).toBe('not filed: HTTP 404');
  });
});
