import { useState, type FormEvent } from 'react';
import type { Role } from '../api/client';
import { Button } from '../ui/Button';
import { FormError, SelectField, TextField } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { ShareLink } from './ShareLink';
import { ROLES, useInvite } from './queries';
import styles from '../ui/sections.module.css';

/** Creates an invitation; its link is shown once (only its hash is stored), with a QR code. */
export function InviteForm() {
  const invite = useInvite();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('QA');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { field, message } = splitError(invite.error, { email: /^email\b|e-mail/i });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    invite.mutate(
      { email: address || undefined, role },
      {
        onSuccess: () => {
          setSentTo(address || null);
          setEmail('');
        },
      },
    );
  };
  return (
    <>
      <form className={styles.inline} onSubmit={submit} aria-label="Invite a member" noValidate>
        <TextField
          label="E-mail (optional)"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={field === 'email' ? message : null}
        />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="primary" disabled={invite.isPending}>
          {invite.isPending ? 'Creating…' : 'Create invitation'}
        </Button>
      </form>
      <p className={styles.note}>Without an e-mail, none is sent and the invitee gives their address when joining.</p>
      {field === null && <FormError error={invite.error} />}
      {invite.data && (
        <ShareLink
          label="Invitation link"
          url={invite.data.inviteUrl}
          page="/invite"
          token={invite.data.token}
          sent={invite.data.emailSent && sentTo ? `E-mailed to ${sentTo}.` : null}
          validity="It is valid for 7 days and shown only now."
        />
      )}
    </>
  );
}
