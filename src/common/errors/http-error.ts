import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * An HTTP error with a fixed, user-facing message and optional response headers
 * (for example Retry-After). The global filter turns it into `{ "error": message }`.
 */
export class HttpError extends HttpException {
  constructor(
    status: HttpStatus | number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }
}

export const badRequest = (message: string) => new HttpError(HttpStatus.BAD_REQUEST, message);
export const unauthorized = (message = 'Unauthorized') => new HttpError(HttpStatus.UNAUTHORIZED, message);
export const forbidden = (message = 'Forbidden') => new HttpError(HttpStatus.FORBIDDEN, message);
export const notFound = (message = 'Not found') => new HttpError(HttpStatus.NOT_FOUND, message);
export const conflict = (message: string) => new HttpError(HttpStatus.CONFLICT, message);
export const gone = (message: string) => new HttpError(HttpStatus.GONE, message);
export const payloadTooLarge = (message: string) => new HttpError(HttpStatus.PAYLOAD_TOO_LARGE, message);
