import { HttpException } from '@nestjs/common';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An error answered in SCIM's shape (RFC 7644 §3.12) with its optional `scimType`. */
export class ScimError extends HttpException {
  constructor(
    status: number,
    readonly detail: string,
    readonly scimType?: string,
  ) {
    super(detail, status);
  }
}
