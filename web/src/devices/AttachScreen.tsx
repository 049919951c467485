import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { DEFAULT_FILTERS } from '../builds/filters';
import { versionText } from '../builds/format';
import { useAddComment, useBuilds } from '../builds/queries';
import { Button } from '../ui/Button';
import { FormError, SelectField, TextArea } from '../ui/Field';
import styles from './devices.module.css';

/**
 * "Attach this screen to a comment": the picture on screen now, as a comment attachment on a
 * chosen build (the newest of the device's platform first; `?build=` preselects one, so a build
 * page can open its device).
 */
export function AttachScreen({
  screen,
  deviceName,
  platform,
  initialBuildId,
}: {
  screen: Blob | null;
  deviceName: string;
  platform: 'ios' | 'android' | null;
  initialBuildId: number | null;
}) {
  const builds = useBuilds(DEFAULT_FILTERS);
  // The device's own platform first: a screen of a Pixel belongs to an Android build.
  const ownPlatform = useBuilds({ ...DEFAULT_FILTERS, platform: platform ?? '' });
  const own = platform ? (ownPlatform.data?.items ?? []) : [];
  const items = [...own, ...(builds.data?.items ?? []).filter((b) => !own.some((o) => o.id === b.id))];
  const [chosen, setChosen] = useState<number | null>(initialBuildId);
  const buildId = chosen ?? items[0]?.id ?? 0;
  const [body, setBody] = useState('');
  const add = useAddComment(buildId);
  const [postedTo, setPostedTo] = useState<number | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!screen || !buildId) return;
    // The capture shown now: the comment gets exactly what was seen.
    const blob = screen;
    const extension = blob.type === 'image/png' ? 'png' : 'jpg';
    const attachment = new File([blob], `${deviceName.replace(/[^\w.-]+/g, '-')}-screen.${extension}`, { type: blob.type });
    add.mutate({ body: body.trim() || `Screen of ${deviceName}`, attachment }, { onSuccess: () => {
      setPostedTo(buildId);
      setBody('');
    } });
  };
  if (!items.length) return <p className={styles.muted}>No builds to comment on yet.</p>;
  return (
    <form onSubmit={submit} className={styles.install} aria-label="Attach this screen to a comment">
      <SelectField label="Build" value={buildId} onChange={(e) => setChosen(Number(e.target.value))}>
        {items.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name} {versionText(b.version_name, b.build_number)} · {b.platform === 'ios' ? 'iOS' : 'Android'}
          </option>
        ))}
      </SelectField>
      <TextArea label="Comment" value={body} onChange={(e) => setBody(e.target.value)} rows={2} placeholder={`Screen of ${deviceName}`} />
      <div>
        <Button type="submit" variant="primary" disabled={!screen || add.isPending}>
          {add.isPending ? 'Attaching…' : 'Attach this screen to a comment'}
        </Button>
      </div>
      <FormError error={add.error} />
      {postedTo !== null && add.isSuccess && (
        <p role="status" className={styles.installed}>
          Comment posted. <Link to={`/builds/${postedTo}`}>Open the build</Link>
        </p>
      )}
    </form>
  );
}
