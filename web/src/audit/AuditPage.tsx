import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { AdminOnly } from '../app/AdminOnly';
import { Button, buttonClass } from '../ui/Button';
import { FormEnd, FormError, TextField, cardClass, formClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { tableClass, tableWrapClass, textCellClass } from '../ui/table';
import { useToast } from '../ui/Toast';
import { exportUrl, useAuditEntries, useAuditSettings, useSetAuditRetention, type AuditFilters } from './queries';
import styles from '../ui/sections.module.css';

const FILTER_KEYS = ['action', 'actor', 'target', 'since', 'until'] as const;

/** The audit log (Admins): who did what, filtered through the URL so a view can be linked; exports with the same filters. */
export function AuditPage() {
  return (
    <section className={styles.page} aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <AdminOnly what="the audit log">
        <p className={styles.lead}>
          Every sign-in, change and device action, newest first. Each entry's hash covers the one before it: <code>svc audit verify</code> checks
          the chain on the relay's machine.
        </p>
        <AuditView />
        <RetentionForm />
      </AdminOnly>
    </section>
  );
}

function AuditView() {
  const [params, setParams] = useSearchParams();
  const filters: AuditFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = key === 'since' || key === 'until' ? toIso(value) : value;
  }
  const entries = useAuditEntries(filters);
  const [draft, setDraft] = useState<Record<string, string>>({});
  useEffect(() => setDraft(Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? '']))), [params]);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const key of FILTER_KEYS) if (draft[key]?.trim()) next.set(key, draft[key].trim());
    setParams(next);
  };
  const items = entries.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <form className={`${cardClass} ${formClass}`} onSubmit={apply} noValidate aria-label="Filter the audit log">
        <div className={styles.inline}>
          <TextField label="Action" hint="auth.sign_in, or a family: auth." value={draft.action ?? ''} onChange={(e) => setDraft({ ...draft, action: e.target.value })} />
          <TextField label="Actor" hint="member id or e-mail" value={draft.actor ?? ''} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />
          <TextField label="Target" hint="member:12, build:40" value={draft.target ?? ''} onChange={(e) => setDraft({ ...draft, target: e.target.value })} />
          <TextField label="Since" type="datetime-local" value={draft.since ?? ''} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
          <TextField label="Until" type="datetime-local" value={draft.until ?? ''} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />
        </div>
        <div className={styles.inline}>
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          <a className={buttonClass} href={exportUrl('jsonl', filters)} download>
            Export JSON Lines
          </a>
          <a className={buttonClass} href={exportUrl('csv', filters)} download>
            Export CSV
          </a>
        </div>
      </form>
      {entries.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : entries.isError ? (
        <FormError error={entries.error} />
      ) : items.length === 0 ? (
        <Empty>No entries match these filters.</Empty>
      ) : (
        <div className={tableWrapClass}>
          <table className={tableClass} aria-label="Audit entries">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">How</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">From</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time>
                  </td>
                  <td>{entry.actor}</td>
                  <td>{entry.via}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>{entry.target ?? '—'}</td>
                  <td>{entry.client_address ?? '—'}</td>
                  <td className={textCellClass}>
                    <code>{Object.keys(entry.details).length ? JSON.stringify(entry.details).replace(/,"/g, ', "') : ''}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {entries.hasNextPage && (
        <Button onClick={() => entries.fetchNextPage()} disabled={entries.isFetchingNextPage}>
          {entries.isFetchingNextPage ? 'Loading…' : 'Older entries'}
        </Button>
      )}
    </>
  );
}

function RetentionForm() {
  const settings = useAuditSettings();
  const save = useSetAuditRetention();
  const toast = useToast();
  const [days, setDays] = useState('');
  const saved = settings.data?.retention_days;
  useEffect(() => {
    if (saved !== undefined) setDays(saved === null ? '' : String(saved));
  }, [saved]);
  if (settings.isPending) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = days.trim() ? Number(days.trim()) : null;
    save.mutate(value, { onSuccess: () => toast(value ? `Entries older than ${value} days will be removed.` : 'Every entry is kept.') });
  };
  return (
    <form className={`${cardClass} ${formClass}`} onSubmit={submit} noValidate aria-label="Audit retention">
      <h2>Retention</h2>
      <TextField
        label="Keep entries for (days)"
        hint="Empty keeps everything. Removed entries leave an anchor, so the rest still verifies."
        inputMode="numeric"
        value={days}
        onChange={(e) => setDays(e.target.value)}
        error={save.error?.message ?? null}
      />
      <FormEnd pending={save.isPending} label="Save retention" pendingLabel="Saving…" />
    </form>
  );
}

/** A datetime-local value (no zone) read as the browser's local time; anything else passed as typed. */
function toIso(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
