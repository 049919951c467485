import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './http-error';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

const MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'Malformed JSON body',
  'entity.too.large': 'Request body too large',
  'encoding.unsupported': 'Unsupported body encoding',
  'charset.unsupported': 'Unsupported body charset',
  'request.aborted': 'Request aborted',
  'request.size.invalid': 'Request body size does not match Content-Length',
};

/**
 * Express error middleware right after the JSON parser: turns its errors into fixed-message
 * HttpErrors. A client error without a known type (a `Content-Encoding: gzip` body that is not
 * gzip: zlib's error carries no type) is still the client's: 400, not the filter's 500.
 */
export function bodyParserErrors(err: BodyParserError, _req: Request, _res: Response, next: NextFunction): void {
  if (err?.status && err.status >= 400 && err.status < 500) {
    next(new HttpError(err.status, (err.type && MESSAGES[err.type]) || 'Malformed request body'));
    return;
  }
  next(err);
}
