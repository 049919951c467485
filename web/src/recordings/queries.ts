import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, toApiError, type Schemas } from '../api/client';

export type Recording = Schemas['Recording'];

/** A recording being written: POST /sessions/:id/recordings and GET …/recordings/current answer this; stop answers a Recording. */
export interface RecordingInProgress {
  id: string;
  state: 'recording';
  sessionId: string;
  buildId: number | null;
  startedAt: string;
  stopsAt: string;
  startedBy: string;
}

/** One thing done on the device while it was recorded; `at` is ms from the video's first frame. */
export interface TimelineEvent {
  at: number;
  /** The device method: tap, swipe, long_press, type_text, press_button, launch_app, install_build… */
  type: string;
  /** The member (e-mail). */
  by: string | null;
  /** `ok`, or how it failed (`error:<code>`, `timeout`, `offline`, `busy`). */
  outcome?: string;
  detail: unknown;
}

/** A UI tree the relay took while recording (`at` as above); `tree` as GET /sessions/:id/ui-tree gives it. */
export interface TimelineSnapshot {
  at: number;
  tree: unknown;
}

export interface Timeline {
  events: TimelineEvent[];
  snapshots: TimelineSnapshot[];
}

/**
 * The recording endpoints of issue 29 (docs/agents.md "Recorded sessions"), written by hand until
 * they are in the generated schema; same errors as `call` (the relay's `{ error }` as an ApiError).
 */
async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError(0, 'The relay could not be reached. Check your connection.');
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) throw toApiError(res.status, body);
  return body as T;
}

const sessionPath = (sessionId: string) => `/api/v1/sessions/${encodeURIComponent(sessionId)}/recordings`;
const jsonPost = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** The generated file name of a recording's url (`/api/v1/recordings/<file>`). */
export const recordingFile = (url: string) => url.slice(url.lastIndexOf('/') + 1);

const currentKey = (sessionId: string) => ['sessions', sessionId, 'recording'] as const;

/**
 * The session's recording in progress, or null. Asked only once this panel knows of one (it started
 * it, or Record answered 409 because one runs already): the relay answers 404 when none runs, and a
 * device page opened for a look should not cost a refused request. Then every 5 s while it runs,
 * since it may end by itself (maximum duration or size, the agent gone).
 */
export function useCurrentRecording(sessionId: string, enabled: boolean) {
  return useQuery({
    queryKey: currentKey(sessionId),
    enabled,
    queryFn: async (): Promise<RecordingInProgress | null> => {
      try {
        return await request<RecordingInProgress>(`${sessionPath(sessionId)}/current`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    refetchInterval: (query) => (query.state.data ? 5000 : false),
    retry: false,
  });
}

export function useStartRecording(sessionId: string) {
  const client = useQueryClient();
  return useMutation({
    /** Without a build, the relay files it under the build last installed on the session through it. */
    mutationFn: (buildId: number | null) => request<RecordingInProgress>(sessionPath(sessionId), jsonPost(buildId ? { buildId } : {})),
    onSuccess: (started) => client.setQueryData(currentKey(sessionId), started),
  });
}

/** Stops it, or collects the result of a recording that ended by itself. */
export function useStopRecording(sessionId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request<Recording>(`${sessionPath(sessionId)}/stop`, jsonPost({})),
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
  const url = recording.url;
  return useQuery({
    queryKey: ['recordings', 'timeline', url],
    enabled: recording.sessionId !== null,
    queryFn: async (): Promise<Timeline | null> => {
      try {
        const timeline = await request<Partial<Timeline>>(`${url}/timeline`);
        return { events: timeline.events ?? [], snapshots: timeline.snapshots ?? [] };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    // A finished recording's timeline does not change.
    staleTime: Infinity,
  });
}
