import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export const scimTokenKeys = { all: ['scim-tokens'] as const };

export function useScimTokens() {
  return useQuery({ queryKey: scimTokenKeys.all, queryFn: () => call(api.GET('/api/v1/scim/tokens')) });
}

/** The created value lives only in this mutation's result: never cached, so a reload forgets it. */
export function useCreateScimToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateScimTokenDto']) => call(api.POST('/api/v1/scim/tokens', { body })),
    onSettled: () => client.invalidateQueries({ queryKey: scimTokenKeys.all }),
  });
}

export function useRevokeScimToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/v1/scim/tokens/{id}', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: scimTokenKeys.all }),
  });
}
