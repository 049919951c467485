import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Forge = Schemas['ForgeItem'];
export type ForgeDelivery = Schemas['ForgeDelivery'];
export type ForgeLogItem = Schemas['ForgeLogItem'];

/** Which forge: a svc.config.json entry (its index in the file) or a dashboard forge (its id). */
export type ForgeRef = { index: number } | { id: number };

export function forgeRef(forge: Forge): ForgeRef {
  return forge.source === 'config' ? { index: forge.index! } : { id: forge.id! };
}

/** How the page names a forge (its list item's label). */
export function forgeName(forge: Forge): string {
  return forge.source === 'config' ? `svc.config.json forge ${forge.index}` : `forge #${forge.id}`;
}

/** The configured forges (svc.config.json): every build page links its provenance with them. */
export function useForges() {
  return useQuery({
    queryKey: ['forges'],
    queryFn: () => call(api.GET('/api/v1/forges')),
    staleTime: 5 * 60_000,
  });
}

/** The delivery log (Admins). */
export function useForgeDeliveries(enabled: boolean) {
  return useQuery({
    queryKey: ['forges', 'deliveries'],
    queryFn: () => call(api.GET('/api/v1/forges/deliveries')),
    enabled,
  });
}

/** POST …/test: one attempt, which the forge's delivery log then shows too. */
export function useSendTestStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ref, ...body }: { ref: ForgeRef; repository: string; commit: string }) =>
      'index' in ref
        ? call(api.POST('/api/v1/forges/config/{index}/test', { params: { path: { index: ref.index } }, body }))
        : call(api.POST('/api/v1/forges/{id}/test', { params: { path: { id: ref.id } }, body })),
    onSettled: () => client.invalidateQueries({ queryKey: ['forges'] }),
  });
}

/** One forge's attempts, newest first; retries happen in the background, so an open log refreshes itself. */
export function useForgeLog(ref: ForgeRef) {
  return useQuery({
    queryKey: ['forges', ref, 'log'],
    queryFn: () =>
      'index' in ref
        ? call(api.GET('/api/v1/forges/config/{index}/deliveries', { params: { path: { index: ref.index } } }))
        : call(api.GET('/api/v1/forges/{id}/deliveries', { params: { path: { id: ref.id } } })),
    refetchInterval: 5000,
    placeholderData: keepPreviousData,
  });
}

function useForgeMutation<T, R>(fn: (input: T) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: ['forges'] }) });
}

export function useCreateForge() {
  return useForgeMutation((body: Schemas['CreateForgeDto']) => call(api.POST('/api/v1/forges', { body })));
}

export function useUpdateForge() {
  return useForgeMutation(({ id, ...body }: Schemas['UpdateForgeDto'] & { id: number }) => call(api.PATCH('/api/v1/forges/{id}', { params: { path: { id } }, body })));
}

/** The deleted forge leaves the list at once, with its log's query: refetching that log would only find a 404. */
export function useDeleteForge() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/v1/forges/{id}', { params: { path: { id } } })),
    onSuccess: (_, id) => {
      client.setQueryData<{ forges: Forge[] }>(['forges'], (old) => old && { forges: old.forges.filter((f) => !(f.source === 'dashboard' && f.id === id)) });
      client.removeQueries({ queryKey: ['forges', { id }] });
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['forges'], exact: true }),
  });
}

/** Links to a commit and a pull request on the forge that serves the repository, or null when none does. */
export function forgeLinks(forges: Forge[] | undefined, repository: string | null): { commit: (sha: string) => string; pullRequest: (n: number) => string } | null {
  if (!repository || !forges) return null;
  const forge = forges.find((f) => f.repositories.some((r) => r.toLowerCase() === repository.toLowerCase()));
  if (!forge) return null;
  const base = `${forge.web_url}/${repository}`;
  if (forge.type === 'gitlab') return { commit: (sha) => `${base}/-/commit/${sha}`, pullRequest: (n) => `${base}/-/merge_requests/${n}` };
  if (forge.type === 'gitea') return { commit: (sha) => `${base}/commit/${sha}`, pullRequest: (n) => `${base}/pulls/${n}` };
  return { commit: (sha) => `${base}/commit/${sha}`, pullRequest: (n) => `${base}/pull/${n}` };
}

/** The commits since the app's last Done build, or the changelog (GET /builds/:id/changes). */
export function useBuildChanges(buildId: number, enabled: boolean) {
  return useQuery({
    queryKey: ['builds', 'detail', buildId, 'changes'],
    queryFn: () => call(api.GET('/api/v1/builds/{id}/changes', { params: { path: { id: buildId } } })),
    enabled,
  });
}
