import { ApiError, toApiError, type Schemas } from './client';

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
export function uploadBuild(
  fields: UploadFields,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<Schemas['BuildSummary']> {
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
