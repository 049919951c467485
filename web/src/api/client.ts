import createClient from 'openapi-fetch';
import type { components, paths } from './schema';
import { asSentence } from './sentence';

export type Schemas = components['schemas'];
export type Build = Schemas['Build'];
export type BuildStatus = NonNullable<Build['status_label']>;
export type Role = Schemas['MeResponse']['role'];

/** An API answer that was not 2xx: the relay's `{ error }` message and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The typed client for the relay's own API (same origin; the session cookie travels by itself). */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** Reads the `{ error }` body of a failed answer into an ApiError, its message as a sentence. */
export function toApiError(status: number, body: unknown): ApiError {
  const message =
    body && typeof body === 'object' && 'error' in body && typeof (body as { error: unknown }).error === 'string'
      ? asSentence((body as { error: string }).error)
      : status === 0
        ? 'The relay could not be reached.'
        : `The relay answered ${status}.`;
  return new ApiError(status, message);
}

/** Turns an openapi-fetch result into its data, or throws the relay's error. */
export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ApiError(0, 'The relay could not be reached. Check your connection.');
  }
  if (!result.response.ok) throw toApiError(result.response.status, result.error);
  return result.data as T;
}

/** Multipart body for openapi-fetch: the schema types files as strings, the browser sends Blobs. */
export function formData(fields: Record<string, string | number | Blob | null | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    form.append(name, value instanceof Blob ? value : String(value));
  }
  return form;
}

/** Passes a FormData through openapi-fetch untouched (the browser sets the multipart boundary). */
export const multipart = { bodySerializer: (body: unknown) => body as FormData };
