import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { FormError, TextArea, TextField } from '../../ui/Field';
import { useCompareSettings, useSaveCompareSettings } from '../queries';
import styles from './contents.module.css';

/** The app's comparison rules (Admins and Developers): size thresholds and the permission watch-list. */
export function CompareSettingsForm({ appId }: { appId: number }) {
  const settings = useCompareSettings(appId);
  const save = useSaveCompareSettings(appId);
  const [percent, setPercent] = useState('');
  const [bytes, setBytes] = useState('');
  const [everyPermission, setEveryPermission] = useState(true);
  const [watched, setWatched] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!settings.data) return;
    setPercent(String(settings.data.size_jump_percent));
    setBytes(settings.data.size_jump_bytes === null ? '' : String(settings.data.size_jump_bytes));
    setEveryPermission(settings.data.flag_every_new_permission);
    setWatched(settings.data.watched_permissions.join('\n'));
  }, [settings.data]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate(
      {
        size_jump_percent: Number(percent),
        size_jump_bytes: bytes.trim() === '' ? null : Number(bytes),
        flag_every_new_permission: everyPermission,
        watched_permissions: watched.split(/[\s,]+/).filter(Boolean),
      },
      { onSuccess: () => setSaved(true) },
    );
  };
  return (
    <details className={styles.settings}>
      <summary>Comparison settings for this app</summary>
      {settings.isError ? (
        <FormError error={settings.error} />
      ) : (
        <form onSubmit={submit} className={styles.settingsForm} aria-label="Comparison settings">
          <TextField label="Size jump threshold (%)" type="number" min={0} max={10000} step="any" required value={percent} onChange={(e) => setPercent(e.target.value)} />
          <TextField
            label="…or in bytes"
            type="number"
            min={1}
            step={1}
            value={bytes}
            onChange={(e) => setBytes(e.target.value)}
            hint="Empty: no byte threshold."
          />
          <label className={styles.check}>
            <input type="checkbox" checked={everyPermission} onChange={(e) => setEveryPermission(e.target.checked)} /> Flag every new permission
          </label>
          <TextArea
            label="Watched permissions"
            rows={3}
            value={watched}
            onChange={(e) => setWatched(e.target.value)}
            hint="One per line; always flagged when added, and marked watched."
          />
          <FormError error={save.error} />
          <div className={styles.settingsActions}>
            <Button type="submit" variant="primary" size="small" disabled={save.isPending || settings.isPending}>
              Save settings
            </Button>
            {saved && <span role="status">Saved. Flags shown in the inbox were stored at upload and keep the old rules.</span>}
          </div>
        </form>
      )}
    </details>
  );
}
