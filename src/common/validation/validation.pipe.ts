import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { badRequest, HttpError } from '../errors/http-error';
import { QueryResults } from './query-results';
import { malformedInputProblem } from './well-formed-input';

/**
 * Constraints that say "missing" or "wrong type" are reported before length or format ones, so a
 * missing field reads `email is required` rather than a complaint about its length, whatever the
 * order the decorators were written in.
 */
const FIRST_CONSTRAINTS = ['isDefined', 'isNotEmpty', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isEnum', 'isIn'];

/**
 * Path parameters keep their text: the stock pipe would turn `1e3` into 1000 before ParseIdPipe
 * could see it. Ids are parsed by ParseIdPipe alone. Every body, query and parameter (JSON or query
 * string; multipart fields get the same in validateFields) is first held to malformedInputProblem:
 * lone surrogates and runaway nesting are a 400 naming the field, never a validator's 500.
 */
class ParamTextValidationPipe extends ValidationPipe {
  private readonly queries = new QueryResults();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A whole query string as a DTO marked @RememberQueryResults() (GET /builds): the same text
    // gives the same DTO or the same 400; any other value is validated every time.
    return this.queries.remembered(value, metadata, () => this.checkAndTransform(value, metadata));
  }

  private async checkAndTransform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const problem = malformedInputProblem(value, metadata.data ?? '');
      if (problem) throw badRequest(problem);
    }
    return super.transform(value, metadata);
  }

  protected transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/** What the pipe and validateFields() both pass to class-validator. */
export const VALIDATOR_OPTIONS = { whitelist: true, forbidUnknownValues: false } as const;

/** The one validation pipe: strips unknown fields, converts types, and reports one failure by field name. */
export function createValidationPipe(): ValidationPipe {
  return new ParamTextValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    exceptionFactory: (errors) => validationFailure(errors),
  });
}

/** The 400 for failed validation: the first failing field's most basic complaint. */
export function validationFailure(errors: ValidationError[]): HttpError {
  return badRequest(firstMessage(errors) ?? 'Invalid request');
}

function firstMessage(errors: ValidationError[], parent = ''): string | undefined {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraint = pickConstraint(error.constraints);
    if (constraint) return constraint.startsWith(error.property) && parent ? `${parent}.${constraint}` : constraint;
    const nested = error.children && firstMessage(error.children, path);
    if (nested) return nested;
  }
  return undefined;
}

function pickConstraint(constraints: Record<string, string> | undefined): string | undefined {
  if (!constraints) return undefined;
  const preferred = FIRST_CONSTRAINTS.find((name) => name in constraints);
  return preferred ? constraints[preferred] : Object.values(constraints)[0];
}
