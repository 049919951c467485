import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export const appKeys = { all: ['apps'] as const };

export function useApps() {
  return useQuery({ queryKey: appKeys.all, queryFn: () => call(api.GET('/api/v1/apps')) });
}

function useAppMutation<T>(fn: (input: T) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void client.invalidateQueries({ queryKey: appKeys.all });
      void client.invalidateQueries({ queryKey: ['builds'] });
    },
  });
}

export function useCreateApp() {
  return useAppMutation((body: Schemas['CreateAppDto']) => call(api.POST('/api/v1/apps', { body })));
}

export function useRenameApp() {
  return useAppMutation(({ id, name }: { id: number; name: string }) =>
    call(api.PATCH('/api/v1/apps/{id}', { params: { path: { id } }, body: { name } })),
  );
}

export function useDeleteApp() {
  return useAppMutation((id: number) => call(api.DELETE('/api/v1/apps/{id}', { params: { path: { id } } })));
}

/** The app's file size over its last builds (GET /apps/:id/sizes), oldest first. */
export function useAppSizes(appId: number, limit = 20) {
  return useQuery({
    queryKey: ['apps', 'sizes', appId, limit],
    queryFn: () => call(api.GET('/api/v1/apps/{id}/sizes', { params: { path: { id: appId }, query: { limit } } })),
  });
}
