import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, call, formData, multipart, type Build, type BuildStatus, type Schemas } from '../api/client';
import { apiQuery, type BuildFilters } from './inbox/filters';

/** One query key per API resource; the live event stream invalidates them by these prefixes. */
export const buildKeys = {
  all: ['builds'] as const,
  lists: ['builds', 'list'] as const,
  list: (filters: BuildFilters) => ['builds', 'list', apiQuery(filters)] as const,
  detail: (id: number) => ['builds', 'detail', id] as const,
  history: (id: number) => ['builds', 'history', id] as const,
  comments: (id: number) => ['comments', id] as const,
  recordings: (id: number) => ['recordings', id] as const,
  contents: (id: number) => ['builds', 'contents', id] as const,
  /** Every build's contents: they name the last Done build before it, which a status change elsewhere moves. */
  allContents: ['builds', 'contents'] as const,
};

export function useBuilds(filters: BuildFilters) {
  return useQuery({
    queryKey: buildKeys.list(filters),
    queryFn: () => call(api.GET('/api/v1/builds', { params: { query: apiQuery(filters) } })),
    placeholderData: keepPreviousData,
  });
}

export function useBuild(id: number) {
  return useQuery({
    queryKey: buildKeys.detail(id),
    queryFn: () => call(api.GET('/api/v1/builds/{id}', { params: { path: { id } } })),
  });
}

/** Writes a changed build into every cached list and its detail, so the change shows at once. */
function patchCachedBuild(client: QueryClient, id: number, change: Partial<Build>) {
  client.setQueriesData<{ items: Build[]; total: number }>({ queryKey: buildKeys.lists }, (list) =>
    list ? { ...list, items: list.items.map((b) => (b.id === id ? { ...b, ...change } : b)) } : list,
  );
  client.setQueryData<Build>(buildKeys.detail(id), (build) => (build ? { ...build, ...change } : build));
}

export interface BuildChange {
  id: number;
  status_label?: BuildStatus | null;
  version_label?: string | null;
}

/** Every notice a status change made, as the relay counted it (headers: the spec fixes the body as { ok: true }). */
export interface StatusNotices {
  webhooksNotified: number;
  forgeStatusesQueued: number;
}

function withNotices<R extends { data?: object; response: Response }>(result: R) {
  const notices: StatusNotices = {
    webhooksNotified: Number(result.response.headers.get('X-Webhooks-Notified') ?? 0),
    forgeStatusesQueued: Number(result.response.headers.get('X-Forge-Statuses-Queued') ?? 0),
  };
  return { ...result, data: result.data && { ...result.data, ...notices } };
}

export function useUpdateBuild() {
  const client = useQueryClient();
  return useMutation({
    // X-Webhooks-Notified, X-Forge-Statuses-Queued: what the change notified, for a truthful confirmation.
    mutationFn: ({ id, ...body }: BuildChange) =>
      call(api.PATCH('/api/v1/builds/{id}', { params: { path: { id } }, body }).then(withNotices)),
    onMutate: async ({ id, ...change }) => {
      await client.cancelQueries({ queryKey: buildKeys.all });
      const before = client.getQueriesData<unknown>({ queryKey: buildKeys.all });
      patchCachedBuild(client, id, change);
      return { before };
    },
    onError: (_err, _change, context) => {
      for (const [key, data] of context?.before ?? []) client.setQueryData(key, data);
    },
    onSettled: (_data, _err, { id }) => {
      void client.invalidateQueries({ queryKey: buildKeys.lists });
      void client.invalidateQueries({ queryKey: buildKeys.detail(id) });
      void client.invalidateQueries({ queryKey: buildKeys.history(id) });
    },
  });
}

export function useDeletionSchedule(id: number) {
  const client = useQueryClient();
  const settle = () => client.invalidateQueries({ queryKey: buildKeys.all });
  const schedule = useMutation({
    mutationFn: () => call(api.POST('/api/v1/builds/{id}/schedule-deletion', { params: { path: { id } } })),
    onSettled: settle,
  });
  const cancel = useMutation({
    mutationFn: () => call(api.DELETE('/api/v1/builds/{id}/schedule-deletion', { params: { path: { id } } })),
    onSettled: settle,
  });
  return { schedule, cancel };
}

/** Who changed the status, from what to what, when; the first entry is the upload (who uploaded it). */
export function useBuildHistory(buildId: number) {
  return useQuery({
    queryKey: buildKeys.history(buildId),
    queryFn: () => call(api.GET('/api/v1/builds/{id}/history', { params: { path: { id: buildId } } })),
  });
}

export function useComments(buildId: number) {
  return useQuery({
    queryKey: buildKeys.comments(buildId),
    queryFn: () => call(api.GET('/api/v1/comments', { params: { query: { build_id: buildId } } })),
  });
}

export function useAddComment(buildId: number) {
  const add = useAddCommentTo();
  return { ...add, mutate: (input: { body: string; attachment: File | null }, options?: Parameters<typeof add.mutate>[1]) => add.mutate({ buildId, ...input }, options) };
}

/** A comment on any build (a rejection's reason is one, posted from the inbox). */
export function useAddCommentTo() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ buildId, body, attachment }: { buildId: number; body: string; attachment: File | null }) =>
      call(
        api.POST('/api/v1/comments', {
          body: formData({ build_id: buildId, body, attachment }) as never,
          ...multipart,
        }),
      ),
    onSettled: (_data, _err, { buildId }) => client.invalidateQueries({ queryKey: buildKeys.comments(buildId) }),
  });
}

export function useDeleteComment(buildId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/v1/comments/{id}', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: buildKeys.comments(buildId) }),
  });
}

export function useRecordings(buildId: number) {
  return useQuery({
    queryKey: buildKeys.recordings(buildId),
    queryFn: () => call(api.GET('/api/v1/recordings', { params: { query: { buildId } } })),
  });
}

/** Which earlier build the build page's switch compares with (the contents name its id). */
export type CompareWith = 'previous' | 'last_done';

/** The build's contents, and which earlier builds `previous` and `last_done` name (null: none). */
export function useContents(buildId: number) {
  return useQuery({
    queryKey: buildKeys.contents(buildId),
    queryFn: () => call(api.GET('/api/v1/builds/{id}/contents', { params: { path: { id: buildId } } })),
  });
}

/**
 * The comparison with build `to`, asked only once the contents named it (`to` null: no such
 * build, so no request that would answer 404 and leave an error in the console).
 */
export function useComparison(buildId: number, to: number | null | undefined) {
  return useQuery({
    queryKey: ['builds', 'compare', buildId, to],
    queryFn: () => call(api.GET('/api/v1/builds/{id}/compare', { params: { path: { id: buildId }, query: { to: String(to) } } })),
    enabled: typeof to === 'number',
    retry: false, // a 409 (an earlier build's contents unreadable) is an answer, not a glitch
  });
}

export function useCompareSettings(appId: number) {
  return useQuery({
    queryKey: ['compare-settings', appId],
    queryFn: () => call(api.GET('/api/v1/apps/{id}/compare-settings', { params: { path: { id: appId } } })),
  });
}

export function useSaveCompareSettings(appId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CompareSettingsDto']) =>
      call(api.PUT('/api/v1/apps/{id}/compare-settings', { params: { path: { id: appId } }, body })),
    onSuccess: (saved) => {
      client.setQueryData(['compare-settings', appId], saved);
      // The live comparison follows the new rules (flags stored at upload do not).
      void client.invalidateQueries({ queryKey: ['builds', 'compare'] });
    },
  });
}
