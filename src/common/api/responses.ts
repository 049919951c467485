import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

/** `{ "ok": true }`: the spec's answer for actions without a result. */
export class OkResponse {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
}

/** Every error body (spec §7). */
export class ErrorResponse {
  @ApiProperty({ example: 'Unauthorized' })
  error: string;
}

const ERROR_MEANINGS: Record<number, string> = {
  400: 'missing field, invalid format',
  401: 'not authenticated or session expired',
  403: 'forbidden: role, scope, host restriction, cross-site request',
  404: 'not found',
  409: 'not possible in the current state',
  410: 'expired or gone (a token, a link, a resumable upload past 24 h)',
  412: 'a required protocol header is missing (Tus-Resumable)',
  413: 'body too large',
  429: 'too many attempts (Retry-After header)',
  502: 'agent unreachable or returned an error',
  503: 'a dependency does not answer (database, directory), the audit log cannot record an upload, or the relay is too busy to check a password now (Retry-After)',
  504: 'agent did not answer in time',
  507: 'not enough disk space on the relay',
};

/** Documents the `{ error }` answers an endpoint can give, one line per status. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_MEANINGS[status] ?? 'error', type: ErrorResponse }),
    ),
  );
}
