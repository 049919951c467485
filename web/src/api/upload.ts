import { buildFileProblem } from '../ui/file-checks';
import { api, ApiError, call, toApiError, type Schemas } from './client';

let limit: Promise<number | null> | null = null;

/** The relay's largest build (`max_build_bytes` of GET /relay/limits), asked once; null when unknown (the relay still checks). */
function maxBuildBytes(): Promise<number | null> {
  limit ??= call(api.GET('/api/v1/relay/limits')).then(
    (limits) => limits.max_build_bytes,
    () => ((limit = null), null),
  );
  return limit;
}

export interface UploadFields {
  file: File;
  status?: string;
  label?: string;
  appId?: number;
}

/**
 * POST /api/v1/builds with upload progress. fetch() cannot report request-body progress, so
 * this one call uses XMLHttpRequest; its types still come from the generated schema.
 */
export async function uploadBuild(
  fields: UploadFields,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<Schemas['BuildSummary']> {
  // A file the relay would refuse by its name or size is refused here, before any of it is sent.
  const problem = buildFileProblem(fields.file, await maxBuildBytes());
  if (problem) throw new ApiError(0, problem);
  const form = new FormData();
  if (fields.status) form.append('status', fields.status);
  if (fields.label) form.append('label', fields.label);
  if (fields.appId) form.append('app_id', String(fields.appId));
  form.append('file', fields.file, fields.file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/builds');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response as Schemas['BuildSummary']);
      else reject(toApiError(xhr.status, xhr.response));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted: the relay could not be reached.'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload cancelled.'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
