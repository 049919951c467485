import { useCurrentMember } from '../../app/RequireAuth';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ApiError, type Build, type BuildStatus } from '../../api/client';
import { useShortcuts } from '../../app/ShortcutsDialog';
import { canWrite } from '../../auth/queries';
import { Button, primaryButtonClass } from '../../ui/Button';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { FormError, TextField, cardClass } from '../../ui/Field';
import { StatusBadge } from '../../ui/StatusBadge';
import { CenterMessage, Loading } from '../../ui/States';
import { AppIcon } from '../../apps/AppIcon';
import { Comments } from '../comments/Comments';
import { ComparePanel } from '../compare/ComparePanel';
import { absoluteTime, countdown, relativeTime } from '../../ui/format';
import { versionText } from '../format';
import { StatusHistory } from './StatusHistory';
import { QrCode } from '../../ui/QrCode';
import { PHONE_QUERY, useMediaQuery } from '../../ui/use-media-query';
import { ReachableAddressNote } from '../../relay/ReachableAddressNote';
import { useReachableAddress } from '../../relay/queries';
import { SharePanel } from '../share-links/SharePanel';
import { ProvenancePanel } from '../provenance/ProvenancePanel';
import { InstallOnDevice } from '../../devices/InstallOnDevice';
import { useBuild, useDeletionSchedule, useUpdateBuild } from '../queries';
import { RecordingsPanel } from '../recordings/RecordingsPanel';
import { ReleaseGatePanel } from '../../release-gate/ReleaseGatePanel';
import { TestRunsPanel } from '../../device-tests/TestRunsPanel';
import { IssuesPanel } from '../../trackers/IssuesPanel';
import { STATUS_KEYS, StatusMenu } from '../status/StatusMenu';
import { useStatusChange } from '../status/status-feedback';
import styles from '../build-page.module.css';


export function BuildPage() {
  const id = Number(useParams().id);
  const build = useBuild(id);
  if (!Number.isInteger(id) || id < 1) return <NotFound />;
  if (build.isPending) return <Loading label="Loading the build…" />;
  if (build.isError) {
    if (build.error instanceof ApiError && build.error.status === 404) return <NotFound />;
    return <FormError error={build.error} />;
  }
  return <BuildView build={build.data} />;
}

function NotFound() {
  return (
    <CenterMessage>
      <div>
        <h1>Build not found</h1>
        <p>It may have been deleted. <Link to="/builds">Back to the builds</Link></p>
      </div>
    </CenterMessage>
  );
}

function BuildView({ build }: { build: Build }) {
  const me = useCurrentMember();
  const writer = canWrite(me.role);
  const update = useUpdateBuild();
  const location = useLocation();
  const uploader = build.uploaded_by;
  const { change: changeStatus, dialog: rejectDialog } = useStatusChange(update, () => `${build.name} ${versionText(build.version_name, build.build_number)}`);
  const setStatus = (status: BuildStatus | null) => changeStatus(build, status);
  useShortcuts({
    c: () => document.getElementById('comment')?.focus(),
    ...(writer
      ? Object.fromEntries(Object.entries(STATUS_KEYS).map(([key, status]) => [key, () => setStatus(status)]))
      : {}),
  });
  useEffect(() => {
    if (location.hash === '#comment') document.getElementById('comment')?.focus();
  }, [location.hash]);

  return (
    <article className={styles.page} aria-labelledby="build-title">
      {rejectDialog}
      <nav aria-label="Breadcrumb" className={styles.breadcrumb}>
        <Link to="/builds">Builds</Link> <span aria-hidden="true">›</span> {build.name}
      </nav>
      <header className={styles.header}>
        <AppIcon name={build.name} src={build.icon_url} large />
        <div className={styles.titleBlock}>
          <h1 id="build-title">
            {build.name} <span className={styles.version}>{versionText(build.version_name, build.build_number)}</span>
          </h1>
          <p className={styles.sub}>
            {build.platform === 'ios' ? 'iOS' : 'Android'} · uploaded{' '}
            <time dateTime={build.uploaded_at} title={absoluteTime(build.uploaded_at)}>
              {relativeTime(build.uploaded_at)}
            </time>
            {uploader && <> by {uploader}</>}
          </p>
        </div>
        <div className={styles.statusBox}>
          <span className={styles.statusLabel} id="status-label">
            Review status
          </span>
          {writer ? (
            <StatusMenu status={build.status_label} onChange={setStatus} label="Review status" />
          ) : (
            <StatusBadge status={build.status_label} />
          )}
          {writer && (
            <span className={styles.note}>
              <kbd>1</kbd>–<kbd>4</kbd> set it. Done and Rejected notify the team's webhooks.
            </span>
          )}
          <FormError error={update.error} />
        </div>
      </header>

      {/* Install first: on a phone the page is one column, and this is what a tester opened it for. */}
      <div className={styles.install}>
        <Download build={build} />
        <SharePanel build={build} writer={writer} />
      </div>

      <div className={styles.grid}>
        <div className={styles.main}>
          <ReleaseGatePanel buildId={build.id} canReview={writer} />
          <TestRunsPanel buildId={build.id} />
          <div id="compare">
            <ComparePanel build={build} canEditSettings={me.role === 'Admin' || me.role === 'Developer'} />
          </div>
          <RecordingsPanel buildId={build.id} />
          <IssuesPanel buildId={build.id} writer={writer} />
          <Comments buildId={build.id} me={me} />
        </div>
        <aside className={styles.side}>
          <section className={cardClass} aria-labelledby="details-title">
            <h2 id="details-title">Details</h2>
            <dl className={styles.meta}>
              <dt>Platform</dt>
              <dd>{build.platform === 'ios' ? 'iOS (simulator)' : 'Android'}</dd>
              <dt>Bundle id</dt>
              <dd>
                <code>{build.bundle_id}</code>
              </dd>
              <dt>Version</dt>
              <dd>{build.version_name ?? '–'}</dd>
              <dt>Build number</dt>
              <dd>{build.build_number ?? '–'}</dd>
              <dt>Uploaded</dt>
              <dd>
                {absoluteTime(build.uploaded_at)}
                {uploader && <> by {uploader}</>}
              </dd>
              {build.completed_at && (
                <>
                  <dt>Completed</dt>
                  <dd>{absoluteTime(build.completed_at)}</dd>
                </>
              )}
            </dl>
            <LabelEditor build={build} writer={writer} />
            <ProvenancePanel build={build} />
          </section>
          <DeletionSchedule build={build} writer={writer} />
          <StatusHistory buildId={build.id} />
        </aside>
      </div>
    </article>
  );
}

function LabelEditor({ build, writer }: { build: Build; writer: boolean }) {
  const update = useUpdateBuild();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(build.version_label ?? '');
  if (!editing) {
    return (
      <div className={styles.labelRow}>
        <span className={styles.metaTerm}>Label</span>
        <span className={styles.labelValue}>{build.version_label ?? <span className={styles.muted}>none</span>}</span>
        {writer && (
          <Button
            size="small"
            onClick={() => {
              setValue(build.version_label ?? '');
              setEditing(true);
            }}
          >
            Edit label
          </Button>
        )}
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: build.id, version_label: value.trim() === '' ? null : value.trim() }, { onSuccess: () => setEditing(false) });
  };
  return (
    <form onSubmit={submit} className={styles.labelForm}>
      <TextField label="Label" value={value} onChange={(e) => setValue(e.target.value)} maxLength={200} hint="Empty removes the label." autoFocus />
      <FormError error={update.error} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" size="small" disabled={update.isPending}>
          Save label
        </Button>
        <Button size="small" onClick={() => setEditing(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function Download({ build }: { build: Build }) {
  const address = useReachableAddress();
  const phone = useMediaQuery(PHONE_QUERY);
  const path = `/api/v1/builds/${build.id}/download`;
  const origin = address.origin;
  const qr = (
    <div className={styles.qr}>
      <QrCode value={origin + path} label={`QR code of the download link ${origin + path}`} />
      <p className={styles.note}>
        Scan with a phone signed in to the dashboard in its browser (for a phone without an account, create a share link):{' '}
        <code>{origin + path}</code>
      </p>
      <ReachableAddressNote address={address} link="download link" />
    </div>
  );
  // On a phone the page is opened to install: a QR code to scan with that same phone is of no use there (issue 40 item 7).
  if (phone) {
    return (
      <section className={cardClass} aria-labelledby="download-title">
        <h2 id="download-title">Install</h2>
        {build.platform === 'android' ? (
          <a href={path} download className={primaryButtonClass}>
            Install the APK
          </a>
        ) : (
          <p className={styles.note}>
            This is an iOS simulator build: it runs in a Mac's simulator, not on a phone. <a href={path} download>Download it</a> on the
            Mac, or install it on a device below.
          </p>
        )}
        <InstallOnDevice build={build} />
        <details>
          <summary>QR code, for another phone</summary>
          {qr}
        </details>
      </section>
    );
  }
  return (
    <section className={cardClass} aria-labelledby="download-title">
      <h2 id="download-title">Download</h2>
      <p>
        <a href={path} download className={styles.download}>
          Download {build.platform === 'ios' ? 'the simulator build' : 'the APK'}
        </a>
      </p>
      {qr}
      <InstallOnDevice build={build} />
    </section>
  );
}

function DeletionSchedule({ build, writer }: { build: Build; writer: boolean }) {
  const { schedule, cancel } = useDeletionSchedule(build.id);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!build.delete_after) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [build.delete_after]);
  return (
    <section className={cardClass} aria-labelledby="deletion-title">
      <h2 id="deletion-title">Deletion</h2>
      {build.delete_after ? (
        <>
          <p>
            Files and record are deleted in{' '}
            <strong className={styles.countdown} role="timer" aria-live="off">
              {countdown(build.delete_after, now)}
            </strong>{' '}
            ({absoluteTime(build.delete_after)}).
          </p>
          {writer && (
            <Button onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              Cancel deletion
            </Button>
          )}
          <FormError error={cancel.error} />
        </>
      ) : (
        <>
          <p className={styles.muted}>Not scheduled: the build is kept.</p>
          {writer && (
            <ConfirmDialog
              trigger={<Button>Schedule deletion…</Button>}
              title="Schedule this build's deletion?"
              description={
                <p>
                  {build.name} {versionText(build.version_name, build.build_number)} and its file will be deleted after the
                  relay's retention delay. Until then you can cancel.
                </p>
              }
              confirmLabel="Schedule deletion"
              onConfirm={() => schedule.mutateAsync()}
            />
          )}
        </>
      )}
    </section>
  );
}
