import { DEFAULT_FILTERS } from '../builds/inbox/filters';
import { versionText } from '../builds/format';
import { useBuilds } from '../builds/queries';
import type { Build } from '../api/client';
import { SelectField } from '../ui/Field';

/** The builds a device's work can be filed under: the device's own platform first, then the rest, newest first. */
export function useBuildChoices(platform: 'ios' | 'android' | null): Build[] {
  const builds = useBuilds(DEFAULT_FILTERS);
  // A screen of a Pixel belongs to an Android build.
  const ownPlatform = useBuilds({ ...DEFAULT_FILTERS, platform: platform ?? '' });
  const own = platform ? (ownPlatform.data?.items ?? []) : [];
  return [...own, ...(builds.data?.items ?? []).filter((b) => !own.some((o) => o.id === b.id))];
}

/** `emptyLabel`: a first choice of no build in particular (value 0). */
export function BuildSelect({
  builds,
  value,
  onChange,
  disabled,
  emptyLabel,
}: {
  builds: Build[];
  value: number;
  onChange: (id: number) => void;
  disabled?: boolean;
  emptyLabel?: string;
}) {
  return (
    <SelectField label="Build" value={value} onChange={(e) => onChange(Number(e.target.value))} disabled={disabled}>
      {emptyLabel && <option value={0}>{emptyLabel}</option>}
      {builds.map((b) => (
        <option key={b.id} value={b.id}>
          {b.name} {versionText(b.version_name, b.build_number)} · {b.platform === 'ios' ? 'iOS' : 'Android'}
        </option>
      ))}
    </SelectField>
  );
}
