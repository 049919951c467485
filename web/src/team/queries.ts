import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, formData, multipart, type Role } from '../api/client';
import { authKeys } from '../auth/queries';

export const ROLES: Role[] = ['Admin', 'Developer', 'QA', 'Viewer'];

/** Under ['team'], which the live stream's `team.changed` invalidates as a whole. */
export const teamKeys = {
  all: ['team'] as const,
  members: ['team', 'members'] as const,
  invitations: ['team', 'invitations'] as const,
};

export function useMembers() {
  return useQuery({ queryKey: teamKeys.members, queryFn: () => call(api.GET('/api/v1/team/members')) });
}

export function useInvitations() {
  return useQuery({ queryKey: teamKeys.invitations, queryFn: () => call(api.GET('/api/v1/team/invitations')) });
}

function useTeamMutation<T, R>(fn: (input: T) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: teamKeys.all }) });
}

export function useChangeRole() {
  return useTeamMutation(({ id, role }: { id: number; role: Role }) =>
    call(api.PATCH('/api/v1/team/members/{id}', { params: { path: { id } }, body: { role } })),
  );
}

export function useRemoveMember() {
  return useTeamMutation((id: number) => call(api.DELETE('/api/v1/team/members/{id}', { params: { path: { id } } })));
}

export function useInvite() {
  return useTeamMutation((body: { email?: string; role: Role }) => call(api.POST('/api/v1/team/invite', { body })));
}

export function useRevokeInvitation() {
  return useTeamMutation((id: number) => call(api.DELETE('/api/v1/team/invitations/{id}', { params: { path: { id } } })));
}

export function useSendReset() {
  return useMutation({
    mutationFn: (id: number) => call(api.POST('/api/v1/team/members/{id}/send-reset', { params: { path: { id } } })),
  });
}

/** Team name and logo; the header reads the same settings query, so it changes at once. */
export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (fields: { team_name?: string; logo?: Blob }) =>
      call(api.PATCH('/api/v1/settings', { body: formData(fields) as never, ...multipart })),
    onSettled: () => client.invalidateQueries({ queryKey: authKeys.settings }),
  });
}

