import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { HttpError } from '../../common/errors/http-error';

/** W3C WebDriver error codes the hub itself answers with (WebDriver §6.6), with their HTTP status. */
const STATUS = {
  'session not created': 500,
  'invalid session id': 404,
  'invalid argument': 400,
  'unknown command': 404,
  'unknown error': 500,
} as const;
export type W3CErrorCode = keyof typeof STATUS;

/** An error of the hub in WebDriver's shape, so a WebDriver client reports its message as it would Appium's own. */
export class W3CError extends HttpError {
  constructor(
    readonly code: W3CErrorCode,
    message: string,
    status: number = STATUS[code],
  ) {
    super(status, message);
  }
}

export const sessionNotCreated = (message: string) => new W3CError('session not created', message);
export const invalidSessionId = (id: string) => new W3CError('invalid session id', `No active session ${id.slice(0, 80)} on this relay (it ended, or never began)`);

/**
 * The hub's routes answer every error as WebDriver does: `{ "value": { "error", "message",
 * "stacktrace" } }`, with the relay's own 401/403 statuses kept (a client shows their message).
 * Bound to the hub controller only; everything else keeps the one `{ "error" }` filter.
 */
@Catch()
export class W3CErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('WebDriverHub');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    const { status, code, message } = this.describe(exception, req);
    if (res.headersSent) return void res.destroy();
    res.status(status).json({ value: { error: code, message, stacktrace: '' } });
  }

  private describe(exception: unknown, req: Request): { status: number; code: W3CErrorCode; message: string } {
    if (exception instanceof W3CError) return { status: exception.getStatus(), code: exception.code, message: String(exception.getResponse()) };
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? exception.message);
      const code: W3CErrorCode = status === HttpStatus.BAD_REQUEST ? 'invalid argument' : status === HttpStatus.NOT_FOUND ? 'unknown command' : 'unknown error';
      return { status, code, message };
    }
    const err = exception instanceof Error ? exception : new Error(String(exception));
    this.logger.error(`${req.method} ${req.path} failed: ${err.message}`, err.stack);
    return { status: 500, code: 'unknown error', message: 'Internal server error' };
  }
}
