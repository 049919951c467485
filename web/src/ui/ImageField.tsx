import { useState } from 'react';
import { TextField } from './Field';
import { imageProblem, PROFILE_IMAGE } from './file-checks';

/**
 * A PNG/JPEG picker (avatars, the team logo: spec §8, at most 2 MB), cleared after each save. A file
 * of another type or size is refused at the field as soon as it is picked, never sent.
 */
export function useImagePick() {
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  return {
    file,
    clear: () => {
      setFile(null);
      setProblem(null);
      setGeneration((n) => n + 1);
    },
    field: ({ error, ...props }: { label: string; error?: string | null }) => (
      <TextField
        key={generation}
        type="file"
        accept={PROFILE_IMAGE.types.join(',')}
        hint="PNG or JPEG, at most 2 MB."
        onChange={(e) => {
          const picked = e.target.files?.[0] ?? null;
          const refused = picked && imageProblem(picked, PROFILE_IMAGE);
          setProblem(refused || null);
          setFile(refused ? null : picked);
        }}
        error={problem ?? error}
        {...props}
      />
    ),
  };
}
