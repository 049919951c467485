import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';

/** Under ['builds'], so every live event that refetches builds (a deleted build) refetches these too. */
export const shareLinkKeys = { list: (buildId: number) => ['builds', 'share-links', buildId] as const };

export function useShareLinks(buildId: number) {
  return useQuery({
    queryKey: shareLinkKeys.list(buildId),
    queryFn: () => call(api.GET('/api/v1/builds/{id}/share-links', { params: { path: { id: buildId } } })),
  });
}

export type NewShareLink = { expires_in_days: number; password?: string; download_limit?: number };

/** The created link; writers get its URL again from the list when it is `resendable`. */
export function useCreateShareLink(buildId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewShareLink) => call(api.POST('/api/v1/builds/{id}/share-links', { params: { path: { id: buildId } }, body })),
    onSettled: () => client.invalidateQueries({ queryKey: shareLinkKeys.list(buildId) }),
  });
}

export function useRevokeShareLink(buildId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (linkId: number) =>
      call(api.DELETE('/api/v1/builds/{id}/share-links/{linkId}', { params: { path: { id: buildId, linkId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: shareLinkKeys.list(buildId) }),
  });
}
