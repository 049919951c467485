import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError, call, formData, multipart, toApiError } from '../api/client';
import { Button } from '../ui/Button';
import { FormError, TextField, formClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import { useImagePick } from '../ui/ImageField';
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

/** Why an invitation link no longer works: the relay's 410 says `used` or `expired` in a header; else unknown or revoked. */
type DeadInvitation = 'used' | 'expired' | 'unknown';

class InvitationGone extends ApiError {
  constructor(
    message: string,
    readonly state: DeadInvitation,
  ) {
    super(410, message);
  }
}

async function verifyInvitation(token: string) {
  const { data, error, response } = await api.GET('/api/v1/invitations/verify', { params: { query: { token } } });
  if (response.status === 410) {
    const state = response.headers.get('X-Invitation-State');
    throw new InvitationGone(toApiError(410, error).message, state === 'used' || state === 'expired' ? state : 'unknown');
  }
  return call(Promise.resolve({ data, error, response }));
}

function DeadInvitationPage({ state }: { state: DeadInvitation }) {
  if (state === 'used') {
    return (
      <DeadLink title="This invitation was already used">
        Someone joined the team with it; an invitation works only once. If that was you, sign in with the e-mail and
        password you chose. Otherwise ask an Admin of the team for a new one.
      </DeadLink>
    );
  }
  if (state === 'expired') {
    return (
      <DeadLink title="This invitation has expired">
        Invitations work for 7 days. Ask an Admin of the team for a new one.
      </DeadLink>
    );
  }
  return (
    <DeadLink title="This invitation link does not work">
      It was revoked, replaced or mistyped. Ask an Admin of the team for a new one.
    </DeadLink>
  );
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
  const avatar = useImagePick();
  const accept = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/invitations/accept', {
          body: formData({ token, password, display_name: displayName.trim() || undefined, email: email.trim() || undefined, avatar: avatar.file }) as never,
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
    queryFn: () => verifyInvitation(token),
    enabled: token !== '' && accept.isIdle,
    retry: false,
  });
  if (!token) return <DeadLink title="This invitation link is incomplete">Open the full link from your invitation.</DeadLink>;
  if (verify.isPending) return <Loading />;
  if (verify.isError) {
    if (verify.error instanceof InvitationGone) return <DeadInvitationPage state={verify.error.state} />;
    if (isGone(verify.error)) return <DeadInvitationPage state="unknown" />;
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
  const invitation = verify.data;
  return (
    <AuthFrame title={`Join ${invitation.team_name}`}>
      <p className={authStyles.lead}>
        {invitation.invited_by ? <strong>{invitation.invited_by}</strong> : 'An Admin'} invited{' '}
        {invitation.email ? <strong>{invitation.email}</strong> : 'you'} to <strong>{invitation.team_name}</strong> as{' '}
        <strong>{invitation.role}</strong>. Choose a password to create your account.
      </p>
      <form className={formClass} onSubmit={submit} noValidate>
        {invitation.email ? (
          // The invited address is the account's; shown so a password manager files it under it.
          <TextField label="E-mail" type="email" autoComplete="username" value={invitation.email} readOnly hint="The address you were invited at: you sign in with it." />
        ) : (
          <TextField
            label="E-mail"
            type="email"
            autoComplete="username"
            hint="The invitation came without an address: the one you give here is the one you sign in with."
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={field === 'email' ? message : null}
          />
        )}
        <TextField
          label="Display name"
          hint="Optional: how teammates see you."
          autoComplete="name"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          error={field === 'display_name' ? message : null}
        />
        <PasswordField isNew value={password} onChange={setPassword} error={field === 'password' ? message : null} autoFocus />
        {avatar.field({ label: 'Profile picture (optional)', error: field === 'avatar' ? message : null })}
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
