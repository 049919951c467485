import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';
import { useSignedIn } from './queries';

export const twoFactorKeys = {
  status: ['auth', 'two-factor'] as const,
  policy: ['settings', 'two-factor'] as const,
};

/** This member's two-factor state (open while the policy holds them at enrolment). */
export function useTwoFactorStatus(enabled = true) {
  return useQuery({ queryKey: twoFactorKeys.status, queryFn: () => call(api.GET('/api/v1/profile/two-factor')), enabled });
}

/** Starts set-up; the relay asks for the password again. */
export function useTwoFactorSetup() {
  return useMutation({
    mutationFn: (currentPassword: string) => call(api.POST('/api/v1/profile/two-factor/setup', { body: { currentPassword } })),
  });
}

export function useTwoFactorConfirm() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => call(api.POST('/api/v1/profile/two-factor/confirm', { body: { code } })),
    // Everything refused before enrolment (Layout's settings, the page behind) may be asked again.
    onSuccess: () => client.invalidateQueries(),
  });
}

export function useTwoFactorDisable() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => call(api.DELETE('/api/v1/profile/two-factor', { body: { code } })),
    onSuccess: () => client.invalidateQueries({ queryKey: twoFactorKeys.status }),
  });
}

/** The second step of a sign-in: the code for the challenge the password step answered. */
export function useTwoFactorSignIn() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: Schemas['TwoFactorSignInDto']) => call(api.POST('/api/v1/auth/login/two-factor', { body })),
    onSuccess: signedIn,
  });
}

export function useTwoFactorPolicy(enabled: boolean) {
  return useQuery({ queryKey: twoFactorKeys.policy, queryFn: () => call(api.GET('/api/v1/settings/two-factor')), enabled });
}

export function useSetTwoFactorPolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (required_for: Schemas['TwoFactorPolicyDto']['required_for']) =>
      call(api.PUT('/api/v1/settings/two-factor', { body: { required_for } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['auth'] }),
  });
}
