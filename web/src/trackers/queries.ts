import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type BuildIssue = Schemas['BuildIssue'];
export type ReportIssue = Schemas['ReportIssueDto'];

export const issueKeys = { build: (buildId: number) => ['issues', buildId] as const };

/** The build's reported issues (their link and tracker status) and the trackers a new one may go to; refreshed while any is being filed. */
export function useBuildIssues(buildId: number) {
  return useQuery({
    queryKey: issueKeys.build(buildId),
    queryFn: () => call(api.GET('/api/v1/builds/{id}/issues', { params: { path: { id: buildId } } })),
    // Filing and tracker webhooks change these without a live event: a minute is the promise (docs/integrations.md).
    refetchInterval: (query) => (query.state.data?.items.some((i) => i.delivery === 'queued' || i.delivery === 'attaching') ? 3000 : 30_000),
  });
}

export function useReportIssue(buildId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ReportIssue) => call(api.POST('/api/v1/builds/{id}/issues', { params: { path: { id: buildId } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: issueKeys.build(buildId) }),
  });
}
