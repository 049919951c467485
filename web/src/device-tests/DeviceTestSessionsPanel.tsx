import { Link } from 'react-router';
import { absoluteTime } from '../ui/format';
import { recordingFile } from '../recordings/queries';
import { FormError, cardClass } from '../ui/Field';
import { tableClass, tableWrapClass } from '../ui/table';
import { useDeviceTestSessions, type DeviceTestSession } from './queries';

/**
 * The build's recorded WebDriver hub sessions (docs/device-tests.md "What is recorded"): each with
 * its verdict, recording, final screenshot, device log and command timeline. Nothing while none.
 */
export function DeviceTestSessionsPanel({ buildId }: { buildId: number }) {
  const sessions = useDeviceTestSessions(buildId);
  if (sessions.isError) return <FormError error={sessions.error} />;
  if (!sessions.data?.length) return null;
  return (
    <section className={cardClass} aria-labelledby="device-test-sessions-title">
      <h2 id="device-test-sessions-title">Device-test sessions</h2>
      {sessions.data.map((session) => (
        <SessionEvidence key={session.id} session={session} />
      ))}
    </section>
  );
}

function SessionEvidence({ session }: { session: DeviceTestSession }) {
  const title = `${session.run ?? 'WebDriver session'} on ${session.deviceSessionId}`;
  const failed = session.commands.filter((c) => c.error).length;
  return (
    <article aria-label={title}>
      <h3>{title}</h3>
      <p>
        {session.verdict ? `${session.verdict.status === 'passed' ? 'Passed' : 'Failed'}${session.verdict.reason ? `: ${session.verdict.reason}` : ''} · ` : ''}
        {session.member} · {absoluteTime(session.startedAt)} · ended ({session.endReason}) · {session.commands.length} commands
        {failed ? `, ${failed} with an error` : ''}
      </p>
      <p>
        {[
          session.recordingUrl && (
            <Link key="recording" to={`?recording=${encodeURIComponent(recordingFile(session.recordingUrl))}#recordings`}>
              Play the recording
            </Link>
          ),
          session.screenshotUrl && (
            <a key="screenshot" href={session.screenshotUrl}>
              Final screenshot
            </a>
          ),
          session.deviceLogUrl && (
            <a key="log" href={session.deviceLogUrl}>
              Device log ({session.logType})
            </a>
          ),
        ]
          .filter(Boolean)
          // Separators only between the links there are: a session without a recording starts with its screenshot.
          .flatMap((link, i) => (i ? [' · ', link] : [link]))}
      </p>
      <details>
        <summary>Commands</summary>
        <div className={tableWrapClass}>
          <table className={tableClass} aria-label={`Commands of ${title}`}>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Command</th>
                <th scope="col">Element</th>
                <th scope="col">Took</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {session.commands.map((command, i) => (
                <tr key={i}>
                  <td>{(command.at / 1000).toFixed(1)} s</td>
                  <td>{command.command ?? `${command.method} ${command.path}`}</td>
                  <td>{command.locator ? `${command.locator.using}: ${command.locator.value}` : (command.elementId ?? '')}</td>
                  <td>{command.durationMs} ms</td>
                  <td>{command.error ? `${command.error.error}: ${command.error.message}` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {session.truncated && <p>Only the first 5,000 commands are kept.</p>}
      </details>
    </article>
  );
}
