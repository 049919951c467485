import { useState } from 'react';
import { TextField } from './Field';

/** A PNG/JPEG picker (avatars, the team logo: spec §8, at most 2 MB), cleared after each save. */
export function useImagePick() {
  const [file, setFile] = useState<File | null>(null);
  const [generation, setGeneration] = useState(0);
  return {
    file,
    clear: () => {
      setFile(null);
      setGeneration((n) => n + 1);
    },
    field: (props: { label: string; error?: string | null }) => (
      <TextField
        key={generation}
        type="file"
        accept="image/png,image/jpeg"
        hint="PNG or JPEG, at most 2 MB."
        onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        {...props}
      />
    ),
  };
}
