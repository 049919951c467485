import { useMutation, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Forge = Schemas['ForgeItem'];
export type ForgeDelivery = Schemas['ForgeDelivery'];

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

export function useSendTestStatus() {
  return useMutation({
    mutationFn: (input: { index: number; repository: string; commit: string }) =>
      call(api.POST('/api/v1/forges/{index}/test', { params: { path: { index: input.index } }, body: { repository: input.repository, commit: input.commit } })),
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
