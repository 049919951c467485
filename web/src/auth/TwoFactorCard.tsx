import { useState, type FormEvent } from 'react';
import { QrCode } from '../ui/QrCode';
import { Button } from '../ui/Button';
import { FormError, TextField, cardClass, formClass } from '../ui/Field';
import { PasswordField } from './CredentialFields';
import { Loading } from '../ui/States';
import { useToast } from '../ui/Toast';
import { useTwoFactorConfirm, useTwoFactorDisable, useTwoFactorSetup, useTwoFactorStatus } from './two-factor-queries';
import styles from './auth.module.css';

/** Two-factor sign-in on the profile page: set up with a QR code, recovery codes shown once, turn off with a code. */
export function TwoFactorCard() {
  const status = useTwoFactorStatus();
  const setup = useTwoFactorSetup();
  const confirm = useTwoFactorConfirm();
  const disable = useTwoFactorDisable();
  const toast = useToast();
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [password, setPassword] = useState('');
  if (status.isPending) return <Loading label="Loading two-factor sign-in…" />;
  if (status.isError) return <FormError error={status.error} />;
  const { enabled, recovery_codes_left: left, required } = status.data;

  const start = (event: FormEvent) => {
    event.preventDefault();
    setup.mutate(password, { onSuccess: () => setPassword('') });
  };
  const confirmCode = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate(code.trim(), {
      onSuccess: (answer) => {
        setRecoveryCodes(answer.recovery_codes);
        setCode('');
        setup.reset();
      },
    });
  };
  const turnOff = (event: FormEvent) => {
    event.preventDefault();
    disable.mutate(code.trim(), {
      onSuccess: () => {
        setCode('');
        toast('Two-factor sign-in is off.');
      },
    });
  };

  return (
    <section className={cardClass} aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {required && !enabled && (
        <p role="alert" className={styles.lead}>
          Your team requires two-factor sign-in. Set it up to use the rest of the dashboard.
        </p>
      )}
      {recoveryCodes && (
        <div role="status">
          <p className={styles.lead}>Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once, and they are shown only now.</p>
          <ul aria-label="Recovery codes" className={styles.recoveryCodes}>
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {enabled && !recoveryCodes && (
        <form className={formClass} onSubmit={turnOff} noValidate aria-label="Turn off two-factor sign-in">
          <p className={styles.lead}>
            On. {left} unused recovery code{left === 1 ? '' : 's'} left.
            {required ? ' Your team requires it, so it cannot be turned off.' : ''}
          </p>
          {!required && (
            <>
              <TextField label="Code to turn it off" value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" error={disable.error?.message ?? null} />
              <div>
                <Button type="submit" variant="danger" disabled={disable.isPending || !code.trim()}>
                  Turn off
                </Button>
              </div>
            </>
          )}
        </form>
      )}
      {!enabled && !setup.data && (
        <form className={formClass} onSubmit={start} noValidate aria-label="Set up two-factor sign-in">
          <p className={styles.lead}>Sign in with a code from an authenticator app as well as your password.</p>
          <PasswordField label="Your password" value={password} onChange={setPassword} error={setup.error?.message ?? null} />
          <div>
            <Button type="submit" variant="primary" disabled={setup.isPending || !password}>
              Set up two-factor sign-in
            </Button>
          </div>
        </form>
      )}
      {!enabled && setup.data && (
        <form className={formClass} onSubmit={confirmCode} noValidate aria-label="Confirm two-factor sign-in">
          <p className={styles.lead}>Scan this code with your authenticator app, then enter the 6-digit code it shows.</p>
          <QrCode value={setup.data.otpauth_uri} label="QR code for your authenticator app" />
          <p className={styles.lead}>
            Cannot scan? Enter this key: <code>{setup.data.secret}</code>
          </p>
          <TextField label="Code from the app" value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" inputMode="numeric" error={confirm.error?.message ?? null} />
          <div>
            <Button type="submit" variant="primary" disabled={confirm.isPending || !code.trim()}>
              Turn on
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
