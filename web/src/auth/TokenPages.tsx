import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError, call, formData, multipart } from '../api/client';
import { Button } from '../ui/Button';
import { FormError, TextField, formClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { Loading } from '../ui/States';
import { AuthFrame, authStyles } from './AuthFrame';
import { PasswordField } from './CredentialFields';
import { useSignedIn } from './queries';

/** The page for a link that no longer works (410) or was cut short. */
function DeadLink({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <AuthFrame title={title}>
      <p className={authStyles.lead}>{children}</p>
      <Link to="/signin">Go to sign-in</Link>
    </AuthFrame>
  );
}

function isGone(error: unknown) {
  return error instanceof ApiError && (error.status === 410 || error.status === 400);
}

/** /invite?token=…: join the team with the role the invitation carries. */
export function InvitePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const signedIn = useSignedIn();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [email, setEmail] = useState('');
  const [avatar, setAvatar] = useState<File | null>(null);
  const accept = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/invitations/accept', {
          body: formData({ token, password, display_name: displayName.trim() || undefined, email: email.trim() || undefined, avatar }) as never,
          ...multipart,
        }),
      ),
    onSuccess: async () => {
      await signedIn();
      navigate('/builds', { replace: true });
    },
  });
  // Not asked again once used: the invitation is gone (410) the moment it is accepted.
  const verify = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => call(api.GET('/api/v1/invitations/verify', { params: { query: { token } } })),
    enabled: token !== '' && accept.isIdle,
    retry: false,
  });
  if (!token) return <DeadLink title="This invitation link is incomplete">Open the full link from your invitation.</DeadLink>;
  if (verify.isPending) return <Loading />;
  if (verify.isError) {
    if (isGone(verify.error)) {
      return (
        <DeadLink title="This invitation has expired">
          Invitations work for 7 days and only once. Ask an Admin of the team for a new one.
        </DeadLink>
      );
    }
    return (
      <AuthFrame title="Join the team">
        <FormError error={verify.error} />
      </AuthFrame>
    );
  }
  if (accept.error instanceof ApiError && accept.error.status === 410) {
    return (
      <DeadLink title="This invitation has expired">
        It expired or was used while this page was open. Ask an Admin of the team for a new one.
      </DeadLink>
    );
  }
  const { field, message } = splitError(accept.error, {
    email: /^email\b/i,
    password: /^password\b/i,
    display_name: /^display_name\b/i,
    avatar: /avatar|image/i,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  return (
    <AuthFrame title="Join the team">
      <p className={authStyles.lead}>
        You were invited as <strong>{verify.data.role}</strong>. Choose a password to create your account.
      </p>
      <form className={formClass} onSubmit={submit} noValidate>
        <TextField
          label="E-mail"
          type="email"
          autoComplete="username"
          hint="Only needed when the invitation did not come to your e-mail address: then it is the address you sign in with."
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={field === 'email' ? message : null}
        />
        <TextField
          label="Display name"
          hint="Optional: how teammates see you."
          autoComplete="name"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          error={field === 'display_name' ? message : null}
        />
        <PasswordField isNew value={password} onChange={setPassword} error={field === 'password' ? message : null} autoFocus />
        <TextField
          label="Profile picture"
          type="file"
          accept="image/png,image/jpeg"
          hint="Optional: PNG or JPEG, at most 2 MB."
          onChange={(e) => setAvatar(e.target.files?.[0] ?? null)}
          error={field === 'avatar' ? message : null}
        />
        {field === null && <FormError error={accept.error} />}
        <Button type="submit" variant="primary" disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Join the team'}
        </Button>
      </form>
    </AuthFrame>
  );
}

/** /reset-password?token=…: a new password from the link an Admin sent. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = useQuery({
    queryKey: ['reset', token],
    queryFn: () => call(api.GET('/api/v1/auth/reset-password/verify', { params: { query: { token } } })),
    enabled: token !== '',
    retry: false,
  });
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/reset-password', { body: { token, password } })),
  });
  if (!token) return <DeadLink title="This reset link is incomplete">Open the full link you were sent.</DeadLink>;
  if (verify.isPending) return <Loading />;
  const gone = (verify.isError && isGone(verify.error)) || (reset.error instanceof ApiError && reset.error.status === 410);
  if (gone) {
    return (
      <DeadLink title="This reset link has expired">
        Reset links work once, for 2 hours, and a newer link replaces older ones. Ask an Admin for a new one.
      </DeadLink>
    );
  }
  if (verify.isError) {
    return (
      <AuthFrame title="Choose a new password">
        <FormError error={verify.error} />
      </AuthFrame>
    );
  }
  if (reset.isSuccess) {
    return (
      <AuthFrame title="Password changed">
        <p className={authStyles.lead}>
          Your password was changed. You were signed out everywhere and your access tokens were revoked.
        </p>
        <Link to="/signin">Sign in</Link>
      </AuthFrame>
    );
  }
  const { field, message } = splitError(reset.error, { password: /^password\b/i });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate();
  };
  return (
    <AuthFrame title="Choose a new password">
      <form className={formClass} onSubmit={submit} noValidate>
        <PasswordField
          isNew
          label="New password"
          hint="At least 8 characters. You will be signed out of every browser."
          value={password}
          onChange={setPassword}
          error={field === 'password' ? message : null}
          autoFocus
        />
        {field === null && <FormError error={reset.error} />}
        <Button type="submit" variant="primary" disabled={reset.isPending}>
          {reset.isPending ? 'Saving…' : 'Set new password'}
        </Button>
      </form>
    </AuthFrame>
  );
}
