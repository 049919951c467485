import { useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type DeviceTestSession = Schemas['DeviceTestSession'];

export const deviceTestKeys = {
  ofBuild: (buildId: number) => ['device-test-sessions', buildId] as const,
};

/** GET /device-test-sessions?buildId=: the build's ended WebDriver hub sessions with their evidence. */
export function useDeviceTestSessions(buildId: number) {
  return useQuery({
    queryKey: deviceTestKeys.ofBuild(buildId),
    queryFn: () => call(api.GET('/api/v1/device-test-sessions', { params: { query: { buildId } } })),
  });
}
