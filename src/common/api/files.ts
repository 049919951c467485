import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiResponse, type SchemaObject } from '@nestjs/swagger';

/** A file part of a multipart form, or a file body. */
export const binaryFile = (description: string): SchemaObject => ({ type: 'string', format: 'binary', description });

/**
 * Documents a streamed multipart/form-data body. The handlers read the request themselves
 * (no DTO class to infer the fields from), so the form's fields are declared here.
 */
export function ApiMultipartBody(properties: Record<string, SchemaObject>, required: string[] = []) {
  return applyDecorators(
    ApiConsumes('multipart/form-data'),
    ApiBody({ schema: { type: 'object', properties, ...(required.length ? { required } : {}) } }),
  );
}

/** Documents a response whose body is a file of one of `contentTypes`, not JSON. */
export function ApiFileResponse(contentTypes: string[], description: string, status = 200) {
  const schema = binaryFile(description);
  return ApiResponse({
    status,
    description,
    content: Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
  });
}
