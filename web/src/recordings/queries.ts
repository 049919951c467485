import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, call, type Schemas } from '../api/client';

export type Recording = Schemas['Recording'];
export type RecordingInProgress = Schemas['RecordingInProgress'];
export type Timeline = Schemas['RecordingTimeline'];
export type TimelineEvent = Schemas['TimelineEvent'];

/** The generated file name of a recording's url (`/api/v1/recordings/<file>`). */
export const recordingFile = (url: string) => url.slice(url.lastIndexOf('/') + 1);

const currentKey = (sessionId: string) => ['sessions', sessionId, 'recording'] as const;
const stopKey = (sessionId: string) => ['sessions', sessionId, 'recording', 'stop'] as const;
const session = (sessionId: string) => ({ params: { path: { sessionId } } });

/** The answer, or null for a 404 (no such thing right now: not an error to show). */
async function orNone<T>(pending: Promise<T>): Promise<T | null> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The session's recording in progress, or null (docs/recordings.md). Asked only once this panel
 * knows of one (it started it, or Record answered 409 because one runs already): the relay answers
 * 404 when none runs, and a device page opened for a look should not cost a refused request. Then
 * every 5 s while it runs, since it may end by itself (maximum duration or size, the agent gone).
 * Never while this panel is stopping it: a poll that reached the relay just after the stop would be
 * answered 404, a failed request in the console for the normal course of things. The check is made
 * when the poll is due, not when the interval was set, since a render may not have happened yet.
 */
export function useCurrentRecording(sessionId: string, enabled: boolean) {
  const client = useQueryClient();
  return useQuery({
    queryKey: currentKey(sessionId),
    enabled,
    queryFn: async ({ signal }) => {
      const stopping = client.isMutating({ mutationKey: stopKey(sessionId) }) > 0;
      if (stopping) return client.getQueryData<RecordingInProgress | null>(currentKey(sessionId)) ?? null;
      // The signal lets the stop cancel a poll already on its way (useStopRecording).
      return orNone(call(api.GET('/api/v1/sessions/{sessionId}/recordings/current', { ...session(sessionId), signal })));
    },
    refetchInterval: (query) => (query.state.data ? 5000 : false),
    retry: false,
  });
}

export function useStartRecording(sessionId: string) {
  const client = useQueryClient();
  return useMutation({
    /** Without a build, the relay files it under the build last installed on the session through it. */
    mutationFn: (buildId: number | null) =>
      call(api.POST('/api/v1/sessions/{sessionId}/recordings', { ...session(sessionId), body: buildId ? { buildId } : {} })),
    onSuccess: (started) => client.setQueryData(currentKey(sessionId), started),
  });
}

/** Stops it, or collects the result of a recording that ended by itself (the relay keeps it 10 minutes). */
export function useStopRecording(sessionId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationKey: stopKey(sessionId),
    mutationFn: () => call(api.POST('/api/v1/sessions/{sessionId}/recordings/stop', session(sessionId))),
    // A poll in flight would race the stop (useCurrentRecording); it goes, the last answer stays.
    onMutate: () => client.cancelQueries({ queryKey: currentKey(sessionId) }),
    onSettled: () => {
      client.setQueryData(currentKey(sessionId), null);
      return client.invalidateQueries({ queryKey: ['recordings'] });
    },
  });
}

/**
 * A recording's timeline. Only recordings of a live session have one: one without a session (an
 * upload) is not asked; an upload that named a session answers 404, shown as "no timeline".
 */
export function useTimeline(recording: Pick<Recording, 'url' | 'sessionId'>) {
  const filename = recordingFile(recording.url);
  return useQuery({
    queryKey: ['recordings', 'timeline', filename],
    enabled: recording.sessionId !== null,
    queryFn: () => orNone(call(api.GET('/api/v1/recordings/{filename}/timeline', { params: { path: { filename } } }))),
    // A finished recording's timeline does not change.
    staleTime: Infinity,
  });
}
