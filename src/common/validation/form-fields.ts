import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { badRequest } from '../errors/http-error';
import { validationFailure, VALIDATOR_OPTIONS } from './validation.pipe';
import { malformedInputProblem } from './well-formed-input';

/**
 * Multipart text fields through a DTO class, as the global pipe does for JSON bodies and queries:
 * same transforms and decorators, unknown fields stripped, one 400 naming the first failing field.
 * Multipart bodies reach handlers as a stream (they are read by `receiveMultipart`, not by the
 * pipe), so services call this on the fields once the files have arrived. Held to the same
 * well-formed-text rule as every JSON body (a lone surrogate → 400 naming the field).
 */
export function validateFields<T extends object>(type: ClassConstructor<T>, fields: Record<string, string>): T {
  const problem = malformedInputProblem(fields);
  if (problem) throw badRequest(problem);
  const dto = plainToInstance(type, { ...fields });
  const errors = validateSync(dto, VALIDATOR_OPTIONS);
  if (errors.length) throw validationFailure(errors);
  return dto;
}
