import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Response } from 'express';
import { JsonLogger } from '../logging/json-logger';
import { SCIM_ERROR_SCHEMA, ScimError } from './scim-error';

/**
 * The one exception to the relay's `{ "error" }` body (docs/identity.md "SCIM"): SCIM clients read
 * RFC 7644 §3.12's shape, `{ schemas, status (a string), scimType?, detail }`, with
 * `application/scim+json`. Every error of a /scim/v2 route goes through here, the guard's 401
 * and the validation pipe's 400 included; unknown errors are logged and answered 500 without detail.
 */
@Catch()
export class ScimErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: JsonLogger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    let status = 500;
    let detail = 'Internal server error';
    let scimType: string | undefined;
    if (err instanceof ScimError) {
      status = err.getStatus();
      detail = err.detail;
      scimType = err.scimType;
    } else if (err instanceof HttpException) {
      status = err.getStatus();
      detail = err.message;
      if (status === 400) scimType = 'invalidValue';
    } else {
      this.logger.error(err instanceof Error ? err.message : String(err), err instanceof Error ? err.stack : undefined, 'ScimErrorFilter');
    }
    res.status(status).type('application/scim+json').send(
      JSON.stringify({ schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail }),
    );
  }
}
