import type { Schemas } from '../api/client';
import { FormError, cardClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { FailureEvidence } from './FailureEvidence';
import { useTestRuns } from './queries';
import styles from './device-tests.module.css';

type TestRun = Schemas['TestRun'];
type TestResult = TestRun['results'][number];

const STATE = { none: 'no results', running: 'running', passed: 'passed', failed: 'failed' } as const;
const MARK = { passed: '✅', failed: '❌', skipped: '⏭️' } as const;

/**
 * The build's device-test runs (docs/device-tests.md "Results"): each run's hub sessions with
 * their recordings, and its JUnit results, pass/fail per test with duration and the failure's
 * message. Failing tests first, so the one to look at is at the top; a failing test (and a failed
 * session) shows its session's final screenshot and opens its recording at the failing command.
 */
export function TestRunsPanel({ buildId }: { buildId: number }) {
  const runs = useTestRuns(buildId);
  if (runs.data && runs.data.runs.length === 0) return null;
  return (
    <section className={cardClass} aria-labelledby="device-tests-title" id="device-tests">
      <h2 id="device-tests-title">Device tests</h2>
      {runs.isPending ? <Loading /> : runs.data ? runs.data.runs.map((run) => <Run key={run.id} run={run} />) : <FormError error={runs.error} />}
    </section>
  );
}

function Run({ run }: { run: TestRun }) {
  const { tests, passed, failed, skipped } = run.counts;
  const results = [...run.results].sort((a, b) => Number(b.status === 'failed') - Number(a.status === 'failed'));
  return (
    <article aria-label={`Run ${run.name}: ${STATE[run.state]}`} className={styles.run}>
      <h3>
        {run.name} <span className={styles[run.state]}>{STATE[run.state]}</span>
      </h3>
      {tests > 0 && (
        <p className={styles.note}>
          {tests} tests: {passed} passed, {failed} failed, {skipped} skipped
        </p>
      )}
      {run.sessions.length > 0 && (
        <ul aria-label={`Sessions of ${run.name}`} className={styles.list}>
          {run.sessions.map((session) => (
            <li key={session.id}>
              <code>{session.id.slice(0, 12)}</code> on {session.device_session_id}: {sessionState(session)}
              {session.reason ? ` — ${session.reason}` : ''}
              {session.status === 'failed' ? (
                <FailureEvidence
                  what={`session ${session.id.slice(0, 12)}`}
                  screenshotUrl={session.screenshot_url}
                  recordingUrl={session.recording_url}
                  failedAtMs={session.failed_at_ms}
                />
              ) : (
                session.recording_url && (
                  <>
                    {' '}
                    <a href={session.recording_url}>recording</a>
                  </>
                )
              )}
            </li>
          ))}
        </ul>
      )}
      {results.length > 0 && (
        <table aria-label={`Results of ${run.name}`} className={styles.results}>
          <thead>
            <tr>
              <th scope="col">Test</th>
              <th scope="col">Result</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {results.map((result, i) => (
              <ResultRow key={i} result={result} />
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}

function ResultRow({ result }: { result: TestResult }) {
  return (
    <tr>
      <td>
        {result.class_name && <span className={styles.note}>{result.class_name} › </span>}
        {result.name}
        {result.message && <pre className={styles.message}>{result.message}</pre>}
        {result.status === 'failed' && (
          <FailureEvidence what={result.name} screenshotUrl={result.screenshot_url} recordingUrl={result.recording_url} failedAtMs={result.failed_at_ms} />
        )}
      </td>
      <td>
        <span aria-hidden="true">{MARK[result.status as keyof typeof MARK]}</span> {result.status}
        {result.recording_url && result.status !== 'failed' && (
          <>
            {' '}
            <a href={result.recording_url}>recording</a>
          </>
        )}
      </td>
      <td>{result.duration_ms === null ? '–' : durationText(result.duration_ms)}</td>
    </tr>
  );
}

type TestRunSession = TestRun['sessions'][number];

/** Running (marked already, if its client said so), its mark, or why it ended unmarked. */
function sessionState(session: TestRunSession): string {
  if (session.status === 'running') return session.verdict ? `running (marked ${session.verdict})` : 'running';
  return session.status === 'ended' ? `ended (${session.end_reason ?? 'unmarked'})` : session.status;
}

/** 850 ms, 12.4 s, 3 min 5 s. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
