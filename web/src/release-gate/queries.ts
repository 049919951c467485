import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';

/** One query key per API resource (docs/release-gate.md); a review invalidates the build's gate and reviews. */
export const gateKeys = {
  all: ['release-gate'] as const,
  gate: (id: number) => ['release-gate', 'gate', id] as const,
  reviews: (id: number) => ['release-gate', 'reviews', id] as const,
  states: (ids: number[]) => ['release-gate', 'states', ids.join(',')] as const,
  inState: (state: string) => ['release-gate', 'in-state', state] as const,
  policies: ['release-gate', 'policies'] as const,
};

export function useGate(buildId: number) {
  return useQuery({ queryKey: gateKeys.gate(buildId), queryFn: () => call(api.GET('/api/v1/builds/{id}/gate', { params: { path: { id: buildId } } })) });
}

export function useReviews(buildId: number) {
  return useQuery({ queryKey: gateKeys.reviews(buildId), queryFn: () => call(api.GET('/api/v1/builds/{id}/reviews', { params: { path: { id: buildId } } })) });
}

export function useReview(buildId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { verdict: 'approve' | 'request_changes'; comment?: string }) =>
      call(api.POST('/api/v1/builds/{id}/reviews', { params: { path: { id: buildId } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: gateKeys.all }),
  });
}

/** The gate state of each listed build (the inbox's rows); builds never evaluated are absent. */
export function useGateStates(ids: number[]) {
  return useQuery({
    queryKey: gateKeys.states(ids),
    enabled: ids.length > 0,
    queryFn: async () => {
      const { states } = await call(api.GET('/api/v1/release-gate/states', { params: { query: { ids: ids.join(',') } } }));
      return new Map(states.map((s) => [s.build_id, s.state]));
    },
  });
}

/** The newest builds whose gate is in `state` (the inbox filter), or null when not filtering. */
export function useBuildsInGateState(state: string | null) {
  return useQuery({
    queryKey: gateKeys.inState(state ?? ''),
    enabled: state !== null,
    queryFn: async () => new Set((await call(api.GET('/api/v1/release-gate/states', { params: { query: { state: state as 'failed' } } }))).states.map((s) => s.build_id)),
  });
}

export function useGatePolicies() {
  return useQuery({ queryKey: gateKeys.policies, queryFn: () => call(api.GET('/api/v1/release-gate/policies')) });
}
