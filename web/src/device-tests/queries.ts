import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';

/** How often a build's runs are read again while one of them runs (its sessions' states change without an event). */
const RUNNING_REFRESH_MS = 5000;

/** One query key per API resource (docs/device-tests.md "Results"). */
export const testRunKeys = {
  all: ['test-runs'] as const,
  ofBuild: (id: number) => ['test-runs', id] as const,
};

export function useTestRuns(buildId: number) {
  return useQuery({
    queryKey: testRunKeys.ofBuild(buildId),
    queryFn: () => call(api.GET('/api/v1/builds/{id}/test-runs', { params: { path: { id: buildId } } })),
    refetchInterval: (query) => (query.state.data?.runs.some((run) => run.state === 'running') ? RUNNING_REFRESH_MS : false),
  });
}
