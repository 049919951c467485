import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Build } from '../api/client';
import { useDevices } from '../agents/queries';
import { Button } from '../ui/Button';
import { FormError, SelectField } from '../ui/Field';
import { deviceRequest } from './device-session';
import styles from './devices.module.css';

interface InstallResult {
  installed?: boolean;
  fileName?: string;
  bytes?: number;
  sha256?: string;
}

/**
 * "Install on device" on a build page: `install_build` with the build's download URL to a booted
 * device of the build's platform, through the device-session socket; the agent downloads the build
 * with its own token and installs it (docs/agents.md), and its answer is shown.
 */
export function InstallOnDevice({ build }: { build: Build }) {
  const devices = useDevices();
  const booted = (devices.data?.items ?? []).filter((d) => d.state === 'booted' && d.agent_online && d.platform === build.platform);
  const [chosen, setChosen] = useState('');
  const sessionId = chosen || booted[0]?.session_id || '';
  const install = useMutation({
    mutationFn: (target: string) =>
      deviceRequest(target, 'install_build', { url: `/api/v1/builds/${build.id}/download`, buildId: build.id }) as Promise<InstallResult>,
  });
  if (!booted.length) return <p className={styles.muted}>No booted {build.platform === 'ios' ? 'iOS' : 'Android'} device is online to install on.</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    install.mutate(sessionId);
  };
  const target = booted.find((d) => d.session_id === sessionId);
  return (
    <form onSubmit={submit} className={styles.install} aria-label="Install on device">
      <SelectField label="Install on device" value={sessionId} onChange={(e) => setChosen(e.target.value)}>
        {booted.map((d) => (
          <option key={d.session_id} value={d.session_id}>
            {d.name} ({d.os_version}) on {d.agent}
          </option>
        ))}
      </SelectField>
      <div>
        <Button type="submit" disabled={install.isPending}>
          {install.isPending ? 'Installing…' : 'Install'}
        </Button>
      </div>
      <FormError error={install.error} />
      {install.data && (
        <p role="status" className={styles.installed}>
          Installed on {target?.name ?? sessionId}
          {install.data.fileName ? `: ${install.data.fileName}` : ''}
          {install.data.bytes !== undefined ? `, ${install.data.bytes} bytes` : ''}
          {install.data.sha256 ? `, SHA-256 ${install.data.sha256}` : ''}
        </p>
      )}
    </form>
  );
}
