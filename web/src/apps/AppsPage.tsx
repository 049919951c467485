import { useCurrentMember } from '../app/RequireAuth';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { canWrite } from '../auth/queries';
import { AppIcon } from './AppIcon';
import { versionText } from '../builds/format';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormError, SelectField, TextField, cardClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { StatusBadge } from '../ui/StatusBadge';
import { Empty, Loading } from '../ui/States';
import { relativeTime } from '../ui/format';
import { useApps, useCreateApp, useDeleteApp, useRenameApp } from './queries';
import { SizeTrend } from './SizeTrend';
import { TestersSection } from '../testers/TestersSection';
import styles from './apps.module.css';

type App = Schemas['AppListItem'];

export function AppsPage() {
  const me = useCurrentMember();
  const writer = canWrite(me.role);
  const apps = useApps();
  return (
    <section className={styles.page} aria-labelledby="apps-title">
      <h1 id="apps-title">Apps</h1>
      <p className={styles.lead}>Builds are filed under their app by bundle id; apps are created on first upload or here.</p>
      {writer && <CreateApp />}
      {apps.isPending ? (
        <Loading label="Loading apps…" />
      ) : apps.isError ? (
        <FormError error={apps.error} />
      ) : apps.data.items.length === 0 ? (
        <Empty>No apps yet. Upload a build, or create an app{writer ? ' above' : ''}.</Empty>
      ) : (
        <ul className={styles.list}>
          {apps.data.items.map((app) => (
            <AppItem key={app.id} app={app} writer={writer} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AppItem({ app, writer }: { app: App; writer: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const remove = useDeleteApp();
  return (
    <li className={`${cardClass} ${styles.app}`}>
      <div className={styles.appHead}>
        {renaming ? (
          <RenameForm app={app} onDone={() => setRenaming(false)} />
        ) : (
          <h2 className={styles.appName}>
            <AppIcon name={app.name} src={app.icon_url} />
            <Link to={`/builds?app_id=${app.id}`}>{app.name}</Link>
          </h2>
        )}
        <span className={styles.platform}>{app.platform === 'both' ? 'iOS + Android' : app.platform === 'ios' ? 'iOS' : 'Android'}</span>
      </div>
      <p className={styles.bundle}>
        <code>{app.bundle_id_key}</code> ·{' '}
        <Link to={`/builds?app_id=${app.id}`} className={styles.count}>
          {app.build_count} {app.build_count === 1 ? 'build' : 'builds'}
        </Link>
      </p>
      {app.latest_build_id ? (
        <p className={styles.latest}>
          Latest: <Link to={`/builds/${app.latest_build_id}`}>{versionText(app.version_name, app.build_number)}</Link>{' '}
          <StatusBadge status={app.status_label as Schemas['Build']['status_label']} />
          {app.latest_uploaded_at && <span className={styles.muted}> · {relativeTime(app.latest_uploaded_at)}</span>}
        </p>
      ) : (
        <p className={styles.muted}>No builds yet.</p>
      )}
      {app.latest_build_id && <SizeTrend appId={app.id} appName={app.name} />}
      <AppTesters appId={app.id} writer={writer} />
      {writer && !renaming && (
        <div className={styles.actions}>
          <Button size="small" onClick={() => setRenaming(true)} aria-label={`Rename ${app.name}`}>
            Rename
          </Button>
          <ConfirmDialog
            trigger={
              <Button size="small" aria-label={`Delete ${app.name}`}>
                Delete
              </Button>
            }
            title={`Delete ${app.name}?`}
            description={
              <p>
                This deletes the app <strong>{app.name}</strong> ({app.bundle_id_key}) together with{' '}
                <strong>all of its builds, their files and every comment on them</strong>. It cannot be undone.
              </p>
            }
            confirmLabel={`Delete ${app.name} and its builds`}
            onConfirm={() => remove.mutateAsync(app.id)}
          />
        </div>
      )}
    </li>
  );
}

function RenameForm({ app, onDone }: { app: App; onDone: () => void }) {
  const rename = useRenameApp();
  const [name, setName] = useState(app.name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ id: app.id, name: name.trim() }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} className={styles.rename}>
      <TextField label={`New name for ${app.name}`} value={name} onChange={(e) => setName(e.target.value)} required autoFocus error={rename.error?.message} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" size="small" disabled={rename.isPending}>
          Save
        </Button>
        <Button size="small" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function CreateApp() {
  const create = useCreateApp();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [bundle, setBundle] = useState('');
  const [platform, setPlatform] = useState<App['platform']>('android');
  const { field, message } = splitError(create.error, { name: /^name\b/i, bundle: /^bundle_id_key\b/i });
  if (!open) {
    return (
      <div>
        <Button variant="primary" onClick={() => setOpen(true)}>
          New app
        </Button>
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), bundle_id_key: bundle.trim(), platform },
      {
        onSuccess: () => {
          setName('');
          setBundle('');
          setOpen(false);
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className={`${cardClass} ${styles.create}`} aria-label="New app">
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required autoFocus error={field === 'name' ? message : null} />
      <TextField
        label="Bundle id"
        placeholder="com.example.app"
        value={bundle}
        onChange={(e) => setBundle(e.target.value)}
        required
        error={field === 'bundle' ? message : null}
        hint="Builds with this bundle id are filed under the app."
      />
      <SelectField label="Platform" value={platform} onChange={(e) => setPlatform(e.target.value as App['platform'])}>
        <option value="android">Android</option>
        <option value="ios">iOS</option>
        <option value="both">Both</option>
      </SelectField>
      {field === null && <FormError error={create.error} />}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create app'}
        </Button>
        <Button onClick={() => setOpen(false)}>Cancel</Button>
      </div>
    </form>
  );
}

/** The app's testers, fetched once the card's "Testers" is opened (a list of many apps asks nothing up front). */
function AppTesters({ appId, writer }: { appId: number; writer: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Testers</summary>
      {open && <TestersSection appId={appId} canWrite={writer} />}
    </details>
  );
}
