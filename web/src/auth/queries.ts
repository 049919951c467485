import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, call, formData, multipart, type Role, type Schemas } from '../api/client';

export const authKeys = {
  status: ['auth', 'status'] as const,
  me: ['auth', 'me'] as const,
  settings: ['settings'] as const,
  changePassword: ['auth', 'change-password'] as const,
};

/** The team's name and logo, public, for the pages shown before sign-in. */
export function useTeamBrand() {
  return useQuery({ queryKey: ['settings', 'brand'], queryFn: () => call(api.GET('/api/v1/settings/brand')), staleTime: 60_000 });
}

export function useAuthStatus() {
  return useQuery({ queryKey: authKeys.status, queryFn: () => call(api.GET('/api/v1/auth/status')) });
}

/**
 * Who this browser is signed in as, or null. Asked through /auth/session, which answers 200 either
 * way: a 401 from /auth/me would be logged as a failed request on every signed-out first visit.
 */
async function currentMember(): Promise<Schemas['MeResponse'] | null> {
  return (await call(api.GET('/api/v1/auth/session'))).me;
}

/** The signed-in member, or null when signed out. */
export function useMe() {
  return useQuery({ queryKey: authKeys.me, queryFn: currentMember, staleTime: 60_000 });
}

export function useSettings(enabled: boolean) {
  return useQuery({
    queryKey: authKeys.settings,
    queryFn: () => call(api.GET('/api/v1/settings')),
    enabled,
    staleTime: 5 * 60_000,
  });
}

/** Roles that may change builds and apps (spec §5: a Viewer is read-only). */
export function canWrite(role: Role | undefined): boolean {
  return role === 'Admin' || role === 'Developer' || role === 'QA';
}

/**
 * Forgets every cached resource but the auth state itself. Only those: removing a query that a
 * mounted page is still fetching (the sign-in page's /auth/status) would leave that page waiting
 * forever, and a sign-out can arrive by the event stream before its own answer.
 */
function forgetResources(client: QueryClient) {
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'auth' });
}

/** After signing in: forget whatever was cached for the previous member and load who we are. */
export function useSignedIn() {
  const client = useQueryClient();
  return async () => {
    forgetResources(client);
    void client.invalidateQueries({ queryKey: authKeys.status });
    // staleTime 0: the cached answer is the signed-out visitor's null.
    await client.fetchQuery({ queryKey: authKeys.me, queryFn: () => call(api.GET('/api/v1/auth/me')), staleTime: 0 });
  };
}

/** The password step; with two-factor sign-in it answers a challenge and no session (the code step follows). */
export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: Schemas['LoginDto']) => call(api.POST('/api/v1/auth/login', { body })),
    onSuccess: (answer) => (answer.two_factor_required ? undefined : signedIn()),
  });
}

/**
 * The session ended (signed out here, or elsewhere: the live stream's `session.ended` may arrive
 * before the logout answer). The auth queries stay (`me` becomes null in place): the sign-in gate
 * and page observe them, and an observer of a removed query waits for it forever. Everything else
 * cached belonged to the member who left.
 */
export function signedOut(client: QueryClient): void {
  client.setQueryData(authKeys.me, null);
  forgetResources(client);
}

/**
 * The live stream says the session it was opened with ended: signed out here or elsewhere, expired,
 * or replaced — changing the password ends every session and answers this browser with a new one.
 * Asking who we are tells them apart: a 401 signs out; otherwise the stream reconnects by itself
 * with the new cookie. During this browser's own password change the answer is not in yet, and
 * the new session is coming with it: nothing to do.
 */
export async function sessionEnded(client: QueryClient): Promise<void> {
  if (client.isMutating({ mutationKey: authKeys.changePassword }) > 0) return;
  if (client.getQueryData(authKeys.me) === null) return;
  try {
    const me = await currentMember();
    if (me) client.setQueryData(authKeys.me, me);
    else signedOut(client);
  } catch {
    // Unreachable relay: the stream reconnects and asks again.
  }
}

/**
 * Signs out here; with an OpenID provider also there (RP-initiated logout): the relay ends the
 * session and names the provider's end-session page, which the browser then opens.
 */
export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const status = await client.fetchQuery({ queryKey: authKeys.status, queryFn: () => call(api.GET('/api/v1/auth/status')) });
      if (!status.methods?.oidc) return call(api.POST('/api/v1/auth/logout'));
      const { redirect } = await call(api.POST('/api/v1/auth/oidc/logout'));
      if (redirect) window.location.assign(redirect);
      return { ok: true as const };
    },
    onSettled: () => signedOut(client),
  });
}

/** First run: creates the first Admin, then signs in with the same credentials (one step for the user). */
export function useInit() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: async (body: Schemas['InitDto']) => {
      await call(api.POST('/api/v1/auth/init', { body }));
      return call(api.POST('/api/v1/auth/login', { body }));
    },
    onSuccess: signedIn,
  });
}

export function useChangePassword() {
  return useMutation({
    mutationKey: authKeys.changePassword,
    mutationFn: (body: Schemas['ChangePasswordDto']) => call(api.POST('/api/v1/auth/change-password', { body })),
  });
}

/** Display name and avatar; `/auth/me` is refetched, so the header shows the change at once. */
export function useUpdateProfile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (fields: { display_name: string; avatar?: Blob }) =>
      call(api.PATCH('/api/v1/profile', { body: formData(fields) as never, ...multipart })),
    onSuccess: () => client.invalidateQueries({ queryKey: authKeys.me }),
  });
}
