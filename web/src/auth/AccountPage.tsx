import { useCurrentMember } from '../app/RequireAuth';
import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { FormError, cardClass, formClass } from '../ui/Field';
import { PasswordField } from './CredentialFields';
import { splitError } from '../ui/form-errors';
import { useToast } from '../ui/Toast';
import { ProfileForm } from './ProfileForm';
import { TwoFactorCard } from './TwoFactorCard';
import { useChangePassword } from './queries';
import styles from './auth.module.css';

export function AccountPage() {
  const me = useCurrentMember();
  const change = useChangePassword();
  const toast = useToast();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const { field, message } = splitError(change.error, {
    currentPassword: /current password|^currentPassword\b/i,
    newPassword: /^newPassword\b/i,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          setCurrent('');
          setNew('');
          toast('Password changed. Other browsers were signed out.');
        },
      },
    );
  };
  return (
    <section className={styles.account} aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      <p className={styles.lead}>
        {me.email} · {me.role}
      </p>
      <TwoFactorCard />
      <ProfileForm />
      <div className={cardClass}>
        <h2>Change password</h2>
        <form className={formClass} onSubmit={submit} noValidate>
          <PasswordField
            label="Current password"
            value={currentPassword}
            onChange={setCurrent}
            error={field === 'currentPassword' ? message : null}
          />
          <PasswordField
            isNew
            label="New password"
            hint="At least 8 characters. Every other browser you are signed in on will be signed out."
            value={newPassword}
            onChange={setNew}
            error={field === 'newPassword' ? message : null}
          />
          {field === null && <FormError error={change.error} />}
          <div>
            <Button type="submit" variant="primary" disabled={change.isPending}>
              {change.isPending ? 'Saving…' : 'Change password'}
            </Button>
          </div>
        </form>
      </div>
    </section>
  );
}
