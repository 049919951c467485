import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAddComment } from '../builds/queries';
import { Button } from '../ui/Button';
import { FormError, TextArea } from '../ui/Field';
import { BuildSelect, useBuildChoices } from './build-choices';
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
  const items = useBuildChoices(platform);
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
      <BuildSelect builds={items} value={buildId} onChange={setChosen} />
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
