import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';
import { AdminOnly } from '../app/AdminOnly';
import { Button } from '../ui/Button';
import { CopyField } from '../ui/CopyField';
import { FormError, cardClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { useRelayHost, useRelayLogs, useRelayWarnings } from './queries';
import styles from '../ui/sections.module.css';

export function RelayPage() {
  return (
    <section className={styles.page} aria-labelledby="relay-title">
      <h1 id="relay-title">Relay</h1>
      <AdminOnly what="the relay's addresses and log">
        <p className={styles.lead}>Where teammates, CI and device hosts reach this relay, and what it is doing.</p>
        <Addresses />
        <LiveLog />
      </AdminOnly>
    </section>
  );
}

function Addresses() {
  const host = useRelayHost();
  const relayWarnings = useRelayWarnings().data;
  const warnings = relayWarnings?.warnings ?? [];
  const lanReason = relayWarnings?.lan_reason;
  if (host.isPending) return <Loading label="Loading addresses…" />;
  if (host.isError) return <FormError error={host.error} />;
  const h = host.data;
  const lan = h.lanHost ? `${window.location.protocol}//${h.lanHost}:${h.port}` : null;
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>Addresses</h2>
      {warnings.map((warning) => (
        <p key={warning} className={styles.warning} role="alert">
          {warning}
        </p>
      ))}
      <Address label="Public URL" value={h.publicBaseUrl} missing="None: set SVC_RELAY_URL, or start it with a tunnel (svc relay --tunnel cloudflared)." />
      <Address label="Agent URL" value={h.agentRelayUrl} missing="None known: agents use the public URL (svc agent --relay <url>)." />
      <Address
        label="LAN address"
        value={lan}
        missing={lanReason ? `None: the relay is ${lanReason.replace(/^runs/, 'running')}${lanReason.startsWith('bound') ? ' (set SVC_HOST=0.0.0.0 to serve the LAN)' : ''}.` : 'Unknown: the relay runs in a container or has no LAN interface.'}
      />
      <p className={styles.muted}>Port {h.port}.</p>
    </div>
  );
}

function Address({ label, value, missing }: { label: string; value: string | null; missing: string }) {
  if (value) return <CopyField label={label} value={value} />;
  return (
    <div>
      <strong>{label}</strong>
      <p className={styles.muted}>{missing}</p>
    </div>
  );
}

/** GET /logs, polled every 2 s while the page is visible; the relay answers it only on its own host. */
function LiveLog() {
  const [paused, setPaused] = useState(false);
  const logs = useRelayLogs(!paused);
  const end = useRef<HTMLPreElement>(null);
  const lines = logs.data;
  useEffect(() => {
    const pre = end.current;
    if (pre) pre.scrollTop = pre.scrollHeight;
  }, [lines]);
  const notHere = logs.error instanceof ApiError && logs.error.status === 403;
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <div className={styles.actions}>
        <h2>Live log</h2>
        {!notHere && (
          <Button size="small" onClick={() => setPaused((p) => !p)} aria-pressed={paused}>
            {paused ? 'Resume' : 'Pause'}
          </Button>
        )}
      </div>
      {notHere ? (
        <p className={styles.muted}>
          The log is shown only on the relay host itself (open this page there, e.g. http://localhost:{window.location.port || 80}).
          Elsewhere, <code>docker logs</code> or the relay's standard output has it.
        </p>
      ) : logs.isPending && !paused ? (
        <Loading label="Loading the log…" />
      ) : logs.isError ? (
        <FormError error={logs.error} />
      ) : (
        <pre ref={end} className={styles.log} tabIndex={0} aria-label="Relay log, newest last">
          {(lines ?? []).map(readableLine).join('\n') || 'No log lines yet.'}
        </pre>
      )}
    </div>
  );
}

/** The relay logs JSON lines (`{ time, level, context, msg }`); shown as `12:04:05 info HTTP GET /… 200`. */
function readableLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { time?: string; level?: string; context?: string; msg?: string };
    if (typeof entry.msg !== 'string') return line;
    const time = entry.time ? new Date(entry.time).toLocaleTimeString() : '';
    return [time, entry.level, entry.context, entry.msg].filter(Boolean).join(' ');
  } catch {
    return line;
  }
}
