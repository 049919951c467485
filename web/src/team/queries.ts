import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, formData, multipart, type Role, type Schemas } from '../api/client';
import { authKeys } from '../auth/queries';
import { useToast } from '../ui/Toast';

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

/**
 * An Admin may demote themself while another Admin remains. Then the Admin pages go at once: the
 * new role is set on `/auth/me` before the request, so nothing asks for team data the relay now
 * refuses (the live `team.changed` would otherwise refetch it); a refusal puts the old role back.
 */
export function useChangeRole() {
  const client = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: ({ id, role }: { id: number; role: Role }) =>
      call(api.PATCH('/api/v1/team/members/{id}', { params: { path: { id } }, body: { role } })),
    onMutate: ({ id, role }) => {
      const me = client.getQueryData<Schemas['MeResponse'] | null>(authKeys.me);
      if (!me || me.id !== id || role === 'Admin') return undefined;
      client.setQueryData(authKeys.me, { ...me, role });
      return { previous: me };
    },
    onError: (error, _input, context) => {
      if (!context?.previous) return;
      client.setQueryData(authKeys.me, context.previous);
      toast(error.message, 'error'); // the row that changed was unmounted with the page
    },
    onSettled: () => {
      void client.invalidateQueries({ queryKey: authKeys.me });
      void client.invalidateQueries({ queryKey: teamKeys.all });
    },
  });
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

