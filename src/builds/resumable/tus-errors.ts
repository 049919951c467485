import { HttpException, Logger } from '@nestjs/common';
import { ErrorMessages } from '../../common/errors/error-messages';
import { buildTooLargeMessage } from '../build-intake.service';
import { tusModules } from './tus-modules';

type TusErrorName = keyof ReturnType<typeof tusModules>['ERRORS'];

/**
 * What each of @tus/server's own refusals means, in the relay's words. Its status is kept (a 501
 * stays a 501); only the plain-text body becomes a message saying what went wrong and what to do.
 */
const TUS_MESSAGES: Record<TusErrorName, string | ((maxBytes: number) => string)> = {
  MISSING_OFFSET: 'Upload-Offset header required',
  INVALID_CONTENT_TYPE: 'Content-Type header required (application/offset+octet-stream)',
  INVALID_OFFSET: 'Upload-Offset conflict',
  INVALID_LENGTH: 'Upload-Length header required',
  INVALID_METADATA: 'Invalid upload-metadata header',
  INVALID_TERMINATION: 'The upload is already complete and cannot be terminated',
  ABORTED: 'Request cut short: another request for this upload took it over',
  FILE_NOT_FOUND: ErrorMessages.uploadNotFound,
  FILE_NO_LONGER_EXISTS: 'Upload no longer exists (expired 24 h after its creation, or removed)',
  ERR_SIZE_EXCEEDED: 'The bytes sent go past the Upload-Length declared at creation',
  ERR_MAX_SIZE_EXCEEDED: buildTooLargeMessage,
  ERR_LOCK_TIMEOUT: 'The upload is busy with another request; try again',
  FILE_WRITE_ERROR: 'The upload could not be written to disk',
  UNKNOWN_ERROR: ErrorMessages.internal,
  UNSUPPORTED_CONCATENATION_EXTENSION: 'Upload-Concat is not supported (no concatenation extension): send the file as one upload',
  UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION:
    'Upload-Length is declared once, when the upload is created: deferred lengths (creation-defer-length) are not supported',
  UNSUPPORTED_EXPIRATION_EXTENSION: 'The expiration extension is not supported here',
};

const logger = new Logger('ResumableUploads');

/**
 * Any error met while serving a tus request as the status and `{ "error" }` message to answer:
 * the relay's own HttpExceptions as they are, tus's refusals by the table above, anything else a
 * logged 500.
 */
export function tusErrorAnswer(err: unknown, maxBuildBytes: number, what: string): { status: number; message: string } {
  if (err instanceof HttpException) return { status: err.getStatus(), message: String(err.getResponse()) };
  const name = tusErrorName(err);
  if (name) {
    const message = TUS_MESSAGES[name];
    const status = (err as { status_code: number }).status_code;
    if (status >= 500) logger.warn(`${what}: tus answered ${status} (${name})`);
    return { status, message: typeof message === 'function' ? message(maxBuildBytes) : message };
  }
  if (isTusShaped(err) && err.status_code < 500) return { status: err.status_code, message: err.body.trim() || ErrorMessages.internal };
  const error = err instanceof Error ? err : new Error(String(err));
  logger.error(`${what} failed: ${error.message}`, error.stack);
  return { status: 500, message: ErrorMessages.internal };
}

function tusErrorName(err: unknown): TusErrorName | undefined {
  const errors = tusModules().ERRORS;
  const name = (Object.keys(errors) as TusErrorName[]).find((candidate) => errors[candidate] === err);
  if (name) return name;
  // tus's stream limiter throws an error of its own with this body: a body running past Upload-Length.
  if (isTusShaped(err) && err.body === errors.ERR_MAX_SIZE_EXCEEDED.body) return 'ERR_SIZE_EXCEEDED';
  return undefined;
}

/** A refusal of a tus version newer than the table: its own status and words. */
function isTusShaped(err: unknown): err is { status_code: number; body: string } {
  return typeof (err as { status_code?: unknown })?.status_code === 'number' && typeof (err as { body?: unknown }).body === 'string';
}
