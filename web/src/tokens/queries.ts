import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export const tokenKeys = { all: ['tokens'] as const };

export function useTokens() {
  return useQuery({ queryKey: tokenKeys.all, queryFn: () => call(api.GET('/api/v1/tokens')) });
}

/** The created value lives only in this mutation's result: never cached, so a reload forgets it. */
export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateTokenDto']) => call(api.POST('/api/v1/tokens', { body })),
    onSettled: () => client.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/v1/tokens/{id}', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
