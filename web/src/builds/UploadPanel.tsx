import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { BuildStatus, Schemas } from '../api/client';
import { uploadBuild } from '../api/upload';
import { Button } from '../ui/Button';
import { FormError, SelectField, TextField } from '../ui/Field';
import { STATUSES } from '../ui/StatusBadge';
import { fileSize, versionText } from './format';
import { buildKeys } from './queries';
import styles from './builds.module.css';

export const BUILD_FILE_TYPES = '.apk,.zip,.tar.gz,.tgz';

/** Files dragged over the page: the first one, if any, is what a drop uploads. */
export function droppedFile(event: DragEvent): File | null {
  return event.dataTransfer?.files?.[0] ?? null;
}

interface UploadPanelProps {
  file: File | null;
  onFile: (file: File | null) => void;
  dragging: boolean;
}

/** Upload a build: pick or drop a file, choose the initial status and label, watch it go up. */
export function UploadPanel({ file, onFile, dragging }: UploadPanelProps) {
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<BuildStatus | ''>('');
  const [label, setLabel] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const abort = useRef<AbortController | null>(null);
  const upload = useMutation({
    mutationFn: (chosen: File) => {
      abort.current = new AbortController();
      setProgress(0);
      return uploadBuild({ file: chosen, status: status || undefined, label: label.trim() || undefined }, setProgress, abort.current.signal);
    },
    onSettled: () => {
      setProgress(null);
      void client.invalidateQueries({ queryKey: buildKeys.all });
      void client.invalidateQueries({ queryKey: ['apps'] });
    },
    onSuccess: () => {
      onFile(null);
      setLabel('');
      if (input.current) input.current.value = '';
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate(file);
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
            {file ? (
              <>
                <strong>{file.name}</strong> · {fileSize(file.size)}
              </>
            ) : (
              <>Drop an .apk, .app.zip or .tar.gz anywhere here, or</>
            )}
          </span>
          <label className={styles.pick}>
            {file ? 'Choose another file' : 'choose a file'}
            <input
              ref={input}
              id="upload-file"
              type="file"
              accept={BUILD_FILE_TYPES}
              className="visually-hidden"
              onChange={(e) => {
                upload.reset();
                onFile(e.target.files?.[0] ?? null);
              }}
            />
          </label>
        </div>
        {file && (
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
              <Button type="submit" variant="primary" disabled={upload.isPending}>
                {upload.isPending ? 'Uploading…' : 'Upload'}
              </Button>
              {upload.isPending ? (
                <Button onClick={() => abort.current?.abort()}>Cancel upload</Button>
              ) : (
                <Button
                  onClick={() => {
                    onFile(null);
                    upload.reset();
                  }}
                >
                  Clear
                </Button>
              )}
            </div>
          </div>
        )}
        {progress !== null && (
          <div className={styles.progressRow}>
            <progress className={styles.progress} max={1} value={progress} aria-label="Upload progress" />
            <span aria-live="polite">{progress >= 1 ? 'Reading the build…' : `${Math.round(progress * 100)}%`}</span>
          </div>
        )}
        <FormError error={upload.error} />
      </form>
      {upload.data && <UploadedBuild build={upload.data} />}
    </section>
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
