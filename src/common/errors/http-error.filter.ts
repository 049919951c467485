import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ErrorMessages } from './error-messages';
import { HttpError } from './http-error';

/**
 * The one place an error becomes a response: always `{ "error": "<message>" }`.
 * Known errors keep their status and message; anything unexpected is logged with its stack and
 * answered 500 without details.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const { status, message, headers } = this.describe(exception, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json({ error: message });
  }

  private describe(
    exception: unknown,
    req: Request,
  ): { status: number; message: string; headers: Record<string, string> } {
    if (exception instanceof HttpError) {
      return { status: exception.getStatus(), message: String(exception.getResponse()), headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logUnexpected(exception, req);
      return { status, message: this.httpExceptionMessage(exception, status), headers: {} };
    }
    this.logUnexpected(exception, req);
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: ErrorMessages.internal, headers: {} };
  }

  /**
   * Our code throws only HttpError; an HttpException that is not one comes from the framework (the
   * router's "Cannot GET /x" for an unknown route, a pipe's complaint). Its status decides, never its
   * text: 5xx is the internal message, 404 the fixed "Not found"; other 4xx keep their message.
   */
  private httpExceptionMessage(exception: HttpException, status: number): string {
    if (status >= 500) return ErrorMessages.internal;
    if (status === HttpStatus.NOT_FOUND) return ErrorMessages.notFound;
    const body = exception.getResponse();
    if (typeof body === 'string') return body;
    const message = (body as { message?: unknown }).message;
    if (Array.isArray(message)) return message.join('; ');
    if (typeof message === 'string') return message;
    return exception.message;
  }

  private logUnexpected(exception: unknown, req: Request): void {
    const err = exception instanceof Error ? exception : new Error(String(exception));
    this.logger.error(`${req.method} ${req.path} failed: ${err.message}`, err.stack);
  }
}
