import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { BuildStatus, Schemas } from '../../api/client';
import { uploadBuild } from '../../api/upload';
import { Button } from '../../ui/Button';
import { FormError, SelectField, TextField } from '../../ui/Field';
import { STATUSES } from '../../ui/StatusBadge';
import { fileSize } from '../../ui/format';
import { versionText } from '../format';
import { buildKeys } from '../queries';
import styles from '../builds.module.css';

export const BUILD_FILE_TYPES = '.apk,.zip,.tar.gz,.tgz';

/** Every file dragged onto the page: a drop of several uploads them all, as a queue. */
export function droppedFiles(event: DragEvent): File[] {
  return Array.from(event.dataTransfer?.files ?? []);
}

/** One file of the queue: waiting its turn, going up, or finished with its build or its error. */
interface QueuedUpload {
  key: number;
  file: File;
  progress: number | null;
  result?: Schemas['BuildSummary'];
  error?: Error;
}

interface UploadPanelProps {
  files: File[];
  onFiles: (files: File[]) => void;
  dragging: boolean;
}

let nextKey = 0;

/**
 * Upload builds: pick or drop one or several files, choose the initial status and label (for all
 * of them), and watch them go up one after another, each with its own progress and result.
 */
export function UploadPanel({ files, onFiles, dragging }: UploadPanelProps) {
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<BuildStatus | ''>('');
  const [label, setLabel] = useState('');
  const [queue, setQueue] = useState<QueuedUpload[]>([]);
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const patch = (key: number, change: Partial<QueuedUpload>) =>
    setQueue((entries) => entries.map((entry) => (entry.key === key ? { ...entry, ...change } : entry)));

  // One at a time: the relay reads each build as it arrives, and a single progress bar moving is
  // easier to follow than several. Cancel stops the current upload and the ones still waiting.
  const run = async (entries: QueuedUpload[], fields: { status?: string; label?: string }) => {
    setRunning(true);
    abort.current = new AbortController();
    const signal = abort.current.signal;
    for (const entry of entries) {
      if (signal.aborted) {
        patch(entry.key, { error: new Error('Upload cancelled.') });
        continue;
      }
      patch(entry.key, { progress: 0 });
      try {
        const result = await uploadBuild({ file: entry.file, ...fields }, (progress) => patch(entry.key, { progress }), signal);
        patch(entry.key, { progress: null, result });
        void client.invalidateQueries({ queryKey: buildKeys.all });
        void client.invalidateQueries({ queryKey: ['apps'] });
      } catch (err) {
        patch(entry.key, { progress: null, error: err as Error });
      }
    }
    setRunning(false);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!files.length || running) return;
    const entries = files.map((file) => ({ key: nextKey++, file, progress: null }));
    setQueue(entries);
    onFiles([]);
    if (input.current) input.current.value = '';
    void run(entries, { status: status || undefined, label: label.trim() || undefined }).then(() => setLabel(''));
  };
  const clear = () => {
    onFiles([]);
    setQueue([]);
    if (input.current) input.current.value = '';
  };

  return (
    <section className={`${styles.upload} ${dragging ? styles.dragging : ''}`} aria-labelledby="upload-title">
      <h2 id="upload-title" className="visually-hidden">
        Upload a build
      </h2>
      <form onSubmit={submit} className={styles.uploadForm}>
        <div className={styles.dropzone} data-testid="dropzone">
          <span aria-hidden="true" className={styles.dropIcon}>⇪</span>
          <span>
            {files.length === 1 ? (
              <>
                <strong>{files[0].name}</strong> · {fileSize(files[0].size)}
              </>
            ) : files.length > 1 ? (
              <>
                <strong>{files.length} files</strong> · {fileSize(files.reduce((sum, f) => sum + f.size, 0))}
              </>
            ) : (
              <span className={styles.wideOnly}>Drop .apk, .app.zip or .tar.gz files anywhere here, or</span>
            )}
          </span>
          <label className={styles.pick}>
            {files.length ? 'Choose other files' : <><span className={styles.wideOnly}>choose a file</span><span className={styles.narrowInline}>Upload a build…</span></>}
            <input
              ref={input}
              id="upload-file"
              type="file"
              multiple
              accept={BUILD_FILE_TYPES}
              className="visually-hidden"
              disabled={running}
              onChange={(e) => onFiles(Array.from(e.target.files ?? []))}
            />
          </label>
        </div>
        {files.length > 1 && (
          <ul className={styles.queue} aria-label="Files to upload">
            {files.map((file, index) => (
              <li key={`${file.name}-${index}`}>
                <strong>{file.name}</strong> · {fileSize(file.size)}
              </li>
            ))}
          </ul>
        )}
        {(files.length > 0 || queue.length > 0) && (
          <div className={styles.uploadOptions}>
            <SelectField label="Initial status" value={status} onChange={(e) => setStatus(e.target.value as BuildStatus | '')}>
              <option value="">No status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </SelectField>
            <TextField label="Label" placeholder="e.g. feature/login" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} />
            <div className={styles.uploadActions}>
              <Button type="submit" variant="primary" disabled={running || !files.length}>
                {running ? 'Uploading…' : files.length > 1 ? `Upload ${files.length} builds` : 'Upload'}
              </Button>
              {running ? <Button onClick={() => abort.current?.abort()}>Cancel upload</Button> : <Button onClick={clear}>Clear</Button>}
            </div>
          </div>
        )}
      </form>
      {queue.length > 0 && (
        <ol className={styles.queue} aria-label="Uploads">
          {queue.map((entry) => (
            <QueueRow key={entry.key} entry={entry} />
          ))}
        </ol>
      )}
    </section>
  );
}

/** The alert names the file (it is read alone); the relay's message often names it already. */
function namedError(fileName: string, message: string): string {
  return message.startsWith(fileName) ? message : `${fileName}: ${message}`;
}

function QueueRow({ entry }: { entry: QueuedUpload }) {
  if (entry.result) return <li><UploadedBuild build={entry.result} /></li>;
  return (
    <li>
      <strong>{entry.file.name}</strong> · {fileSize(entry.file.size)}
      {entry.progress !== null ? (
        <div className={styles.progressRow}>
          <progress className={styles.progress} max={1} value={entry.progress} aria-label={`Upload progress of ${entry.file.name}`} />
          <span aria-live="polite">{entry.progress >= 1 ? 'Reading the build…' : `${Math.round(entry.progress * 100)}%`}</span>
        </div>
      ) : entry.error ? (
        <FormError error={{ message: namedError(entry.file.name, entry.error.message) }} />
      ) : (
        <span className={styles.muted}> · waiting</span>
      )}
    </li>
  );
}

function UploadedBuild({ build }: { build: Schemas['BuildSummary'] }) {
  return (
    <div className={styles.uploaded} role="status">
      <p>
        Uploaded <Link to={`/builds/${build.id}`}>{build.name}</Link>
      </p>
      <dl className={styles.meta}>
        <dt>Platform</dt>
        <dd>{build.platform === 'ios' ? 'iOS' : 'Android'}</dd>
        <dt>Bundle id</dt>
        <dd>
          <code>{build.bundle_id}</code>
        </dd>
        <dt>Version</dt>
        <dd>{versionText(build.version_name, build.build_number)}</dd>
        <dt>Status</dt>
        <dd>{build.status_label ?? 'No status'}</dd>
      </dl>
    </div>
  );
}
