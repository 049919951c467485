import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type ChatRoute = Schemas['ChatRouteItem'];
export type NewChatRoute = Schemas['CreateChatRouteDto'];

const KEY = ['integrations', 'chat'];

/** Slack's configuration and every chat destination (Admins). */
export function useChatSettings() {
  return useQuery({ queryKey: KEY, queryFn: () => call(api.GET('/api/v1/integrations/chat')) });
}

export function useAddChatRoute() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewChatRoute) => call(api.POST('/api/v1/integrations/chat/routes', { body })),
    onSettled: () => client.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRemoveChatRoute() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/v1/integrations/chat/routes/{id}', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: KEY }),
  });
}

/** How the page names a destination (its list item's label). */
export function chatRouteName(route: ChatRoute): string {
  return route.kind === 'slack' ? `Slack channel ${route.channel}` : `Teams ${route.name}`;
}
