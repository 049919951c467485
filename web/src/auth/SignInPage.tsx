import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError, type Schemas } from '../api/client';
import { Button, primaryButtonClass } from '../ui/Button';
import { FormError, TextField, formClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { Loading } from '../ui/States';
import { AuthFrame, authStyles } from './AuthFrame';
import { EmailField, PasswordField } from './CredentialFields';
import { useAuthStatus, useInit, useLogin, useMe } from './queries';
import { useTwoFactorSignIn } from './two-factor-queries';

const FIELDS = { email: /^email\b/i, password: /^password\b/i };

/** Where a signed-out visitor lands: the first-run form, how to initialise, or sign-in. */
export function SignInPage() {
  const status = useAuthStatus();
  const me = useMe();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  if (status.isPending || me.isPending) return <Loading />;
  if (me.data) return <Navigate to={next} replace />;
  if (status.isError) {
    return (
      <AuthFrame title="Sign in">
        <FormError error={status.error} />
        <Button onClick={() => status.refetch()}>Try again</Button>
      </AuthFrame>
    );
  }
  if (!status.data.initialized) {
    return status.data.canInitialize ? <FirstRunForm next={next} /> : <NotInitialised />;
  }
  return <SignInForm next={next} methods={status.data.methods ?? PASSWORD_ONLY} />;
}

/** Only same-site paths are followed after sign-in (no open redirect through ?next=). */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/builds';
}

type SignInMethods = Schemas['SignInMethods'];

/** A relay without single sign-on leaves `methods` out of /auth/status. */
const PASSWORD_ONLY: SignInMethods = { password: true, ldap: false, oidc: null, ssoOnly: false };

/**
 * The provider's button (a plain link: the relay redirects to the provider and back), and the
 * password form — under `sso.only` folded away for the break-glass members who may still use it.
 */
function SignInForm({ next, methods }: { next: string; methods: SignInMethods }) {
  const [breakGlass, setBreakGlass] = useState(false);
  const oidc = methods.oidc;
  const showPassword = methods.password || breakGlass;
  return (
    <AuthFrame title="Sign in">
      {oidc && (
        <a className={primaryButtonClass} href={`${oidc.loginPath}?next=${encodeURIComponent(next)}`}>
          Sign in with {oidc.name}
        </a>
      )}
      {oidc && (
        <div className={authStyles.or} role="separator" aria-label="or">
          or
        </div>
      )}
      {showPassword ? (
        <PasswordSignIn next={next} ldap={methods.ldap} />
      ) : (
        <>
          <p className={authStyles.lead}>This relay signs members in through single sign-on only.</p>
          <Button onClick={() => setBreakGlass(true)}>Break-glass sign-in with a password</Button>
        </>
      )}
    </AuthFrame>
  );
}

function PasswordSignIn({ next, ldap }: { next: string; ldap: boolean }) {
  const login = useLogin();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string | null>(null);
  const { field, message } = splitError(login.error, FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate(
      { email, password },
      {
        onSuccess: (answer) => {
          if (answer.two_factor_required && answer.challenge) setChallenge(answer.challenge);
          else navigate(next, { replace: true });
        },
      },
    );
  };
  if (challenge) {
    return (
      <CodeStep
        challenge={challenge}
        onDone={() => navigate(next, { replace: true })}
        onRestart={() => {
          setChallenge(null);
          setPassword('');
        }}
      />
    );
  }
  return (
    <>
      <form className={formClass} onSubmit={submit} noValidate>
        <EmailField value={email} onChange={setEmail} error={field === 'email' ? message : null} autoFocus />
        <PasswordField value={password} onChange={setPassword} error={field === 'password' ? message : null} />
        {field === null && <FormError error={login.error} />}
        <Button type="submit" variant="primary" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      <p className={authStyles.lead}>
        {ldap
          ? 'Sign in with your directory (LDAP) e-mail and password.'
          : 'Forgot your password? Ask an Admin of your team for a reset link.'}
      </p>
    </>
  );
}

/** After the password: the code from the authenticator app, or a recovery code. No cookie exists until it is right. */
function CodeStep({ challenge, onDone, onRestart }: { challenge: string; onDone: () => void; onRestart: () => void }) {
  const signIn = useTwoFactorSignIn();
  const [code, setCode] = useState('');
  const expired = signIn.error instanceof ApiError && /enter your password again/i.test(signIn.error.message);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ challenge, code: code.trim() }, { onSuccess: onDone });
  };
  return (
    <AuthFrame title="Two-factor sign-in">
      <p className={authStyles.lead}>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      <form className={formClass} onSubmit={submit} noValidate>
        <TextField
          label="Code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoComplete="one-time-code"
          inputMode="text"
          autoFocus
          required
          error={signIn.error && !expired ? signIn.error.message : null}
        />
        {expired && <FormError error={signIn.error} />}
        <Button type="submit" variant="primary" disabled={signIn.isPending || !code.trim()}>
          {signIn.isPending ? 'Checking…' : 'Verify'}
        </Button>
      </form>
      <Button onClick={onRestart}>
        Back to the password
      </Button>
    </AuthFrame>
  );
}

function FirstRunForm({ next }: { next: string }) {
  const init = useInit();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const error = init.error;
  const { field, message } = splitError(error, FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    init.mutate({ email, password }, { onSuccess: () => navigate(next, { replace: true }) });
  };
  const pending = init.isPending;
  return (
    <AuthFrame title="Welcome to svc relay">
      <p className={authStyles.lead}>
        No account exists yet. Create the first Admin: you can invite the rest of the team afterwards.
      </p>
      <form className={formClass} onSubmit={submit} noValidate>
        <EmailField value={email} onChange={setEmail} error={field === 'email' ? message : null} autoFocus />
        <PasswordField isNew value={password} onChange={setPassword} error={field === 'password' ? message : null} />
        {field === null && <FormError error={error} />}
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create Admin account'}
        </Button>
      </form>
    </AuthFrame>
  );
}

function NotInitialised() {
  return (
    <AuthFrame title="This relay is not set up yet">
      <p className={authStyles.lead}>
        The first Admin account can only be created on the machine the relay runs on. There, run:
      </p>
      <code className={authStyles.command}>npx svc admin init --email you@example.com</code>
      <p className={authStyles.lead}>Then reload this page and sign in.</p>
    </AuthFrame>
  );
}
