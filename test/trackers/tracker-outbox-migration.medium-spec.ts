import { TrackerIssuesThroughOutbox1700000039000 } from '../../src/database/migrations/1700000039000-TrackerIssuesThroughOutbox';
import type { TrackerMessage } from '../../src/trackers/delivery/tracker-outbox.sender';
import { useMediumDatabase } from '../medium/medium-database';

/**
 * Migration TrackerIssuesThroughOutbox on both dialects: issues the old per-table outbox had still to
 * file or to attach become queued `tracker` messages of the one outbox, with their attempts, next
 * attempt and last error; filed and failed issues get none; the delivery columns go.
 */
describe('migration TrackerIssuesThroughOutbox (medium)', () => {
  const db = useMediumDatabase();
  const migration = new TrackerIssuesThroughOutbox1700000039000();

  it('moves pending issues into the outbox', async () => {
    const runner = db().dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      const p = (n: number) => (db().dialect === 'postgres' ? `$${n}` : '?');
      const insert = `INSERT INTO tracker_issues (build_id, tracker, project, title, description, status, attempts, next_attempt_at, last_error, external_id, created_at, updated_at)
        VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(p).join(', ')})`;
      const old = [
        [1, 'jira', 'MOB', 'queued one', 'd', 'queued', 2, 50_000, 'HTTP 503', null, 1000, 2000],
        [1, 'linear', 'team', 'attaching one', 'd', 'attaching', 0, 3000, null, 'abc', 1100, 1100],
        [1, 'jira', 'MOB', 'filed one', 'd', 'filed', 1, 4000, null, 'MOB-1', 1200, 1200],
        [1, 'jira', 'MOB', 'failed one', 'd', 'failed', 1, 4000, 'HTTP 404', null, 1300, 1300],
      ];
      for (const row of old) await runner.query(insert, row);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const ids = (await db().rows<{ id: number | string; title: string }>('SELECT id, title FROM tracker_issues ORDER BY id')).map((r) => [r.title, Number(r.id)]);
    const idOf = Object.fromEntries(ids) as Record<string, number>;
    const messages = await db().rows<Record<string, string | number | null>>(
      "SELECT kind, destination, payload, status, attempts, next_attempt_at, last_error, last_attempt_at, created_at FROM outbox_messages WHERE kind = 'tracker' ORDER BY id",
    );
    expect(
      messages.map((m) => ({
        destination: m.destination,
        payload: JSON.parse(String(m.payload)) as TrackerMessage,
        status: m.status,
        attempts: Number(m.attempts),
        next: Number(m.next_attempt_at),
        error: m.last_error,
        lastAttempt: m.last_attempt_at === null ? null : Number(m.last_attempt_at),
        created: Number(m.created_at),
      })),
    ).toEqual([
      { destination: 'tracker:jira', payload: { issueId: idOf['queued one'] }, status: 'queued', attempts: 2, next: 50_000, error: 'HTTP 503', lastAttempt: 2000, created: 1000 },
      { destination: 'tracker:linear', payload: { issueId: idOf['attaching one'] }, status: 'queued', attempts: 0, next: 3000, error: null, lastAttempt: null, created: 1100 },
    ]);
    const [issue] = await db().rows<Record<string, unknown>>('SELECT * FROM tracker_issues ORDER BY id');
    expect(Object.keys(issue)).not.toEqual(expect.arrayContaining(['attempts']));
    expect(Object.keys(issue)).not.toContain('next_attempt_at');
    expect(Object.keys(issue)).toContain('last_error');
  });
});
