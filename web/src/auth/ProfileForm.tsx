import { useState, type FormEvent } from 'react';
import { useCurrentMember } from '../app/RequireAuth';
import { FormEnd, TextField, cardClass, formClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { useImagePick } from '../ui/ImageField';
import { useToast } from '../ui/Toast';
import { useUpdateProfile } from './queries';
import sections from '../ui/sections.module.css';

/** Display name and avatar (PATCH /profile); the header follows at once. */
export function ProfileForm() {
  const me = useCurrentMember();
  const update = useUpdateProfile();
  const toast = useToast();
  const avatar = useImagePick();
  const [displayName, setDisplayName] = useState(me.displayName);
  const { field, message } = splitError(update.error, { display_name: /^display_name\b/i, avatar: /^avatar\b|image/i });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { display_name: displayName.trim(), avatar: avatar.file ?? undefined },
      {
        onSuccess: () => {
          avatar.clear();
          toast('Profile saved.');
        },
      },
    );
  };
  return (
    <div className={cardClass}>
      <h2>Profile</h2>
      <form className={formClass} onSubmit={submit} noValidate aria-label="Profile">
        <TextField
          label="Display name"
          autoComplete="name"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          error={field === 'display_name' ? message : null}
          hint="How teammates see you; empty shows the first part of your e-mail."
        />
        {me.avatarUrl && <img className={sections.preview} src={me.avatarUrl} alt="Your current profile picture" />}
        {avatar.field({ label: 'Profile picture', error: field === 'avatar' ? message : null })}
        <FormEnd error={field === null ? update.error : null} pending={update.isPending} label="Save profile" pendingLabel="Saving…" />
      </form>
    </div>
  );
}
