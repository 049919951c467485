import { ArgumentMetadata, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { badRequest, HttpError } from '../errors/http-error';
import { QueryResults } from './query-results';
import { malformedInputProblem } from './well-formed-input';

/**
 * Constraints that say "missing" or "wrong type" are reported before length or format ones, so a
 * missing field reads `email is required` rather than a complaint about its length, whatever the
 * order the decorators were written in.
 */
const FIRST_CONSTRAINTS = ['isDefined', 'isNotEmpty', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isEnum', 'isIn'];

/** Nest's ValidationPipe with path parameters kept as text (the stock pipe would turn `1e3` into 1000 before ParseIdPipe could see it). */
class ParamTextValidationPipe extends ValidationPipe {
  /** Whether transform() would validate (else it answers transformPrimitive at once); this pipe sets no expectedType. */
  validates(metadata: ArgumentMetadata): boolean {
    return !!metadata.metatype && this.toValidate(metadata);
  }

  primitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return this.transformPrimitive(value, metadata);
  }

  protected transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/**
 * The relay's one validation pipe. Ids are parsed by ParseIdPipe alone. Every body, query and
 * parameter (JSON or query string; multipart fields get the same in validateFields) is first held to
 * malformedInputProblem: lone surrogates and runaway nesting are a 400 naming the field, never a
 * validator's 500.
 *
 * What Nest's pipe answers without validating (a custom decorator's value, a primitive such as a path
 * parameter: most parameters of a request) is answered here at once, not as a promise: each async
 * turn is a promise more a request (issue 42). Anything validated still goes through Nest's pipe.
 */
class RelayValidationPipe implements PipeTransform {
  private readonly queries = new QueryResults();

  constructor(private readonly nest: ParamTextValidationPipe) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (!this.nest.validates(metadata)) {
      refuseMalformed(value, metadata);
      return this.nest.primitive(value, metadata);
    }
    // A whole query string as a DTO marked @RememberQueryResults() (GET /builds): the same text
    // gives the same DTO or the same 400; any other value is validated every time.
    return this.queries.remembered(value, metadata, async () => {
      refuseMalformed(value, metadata);
      return this.nest.transform(value, metadata);
    });
  }
}

function refuseMalformed(value: unknown, metadata: ArgumentMetadata): void {
  if (metadata.type === 'custom') return;
  const problem = malformedInputProblem(value, metadata.data ?? '');
  if (problem) throw badRequest(problem);
}

/** What the pipe and validateFields() both pass to class-validator. */
export const VALIDATOR_OPTIONS = { whitelist: true, forbidUnknownValues: false } as const;

/** The one validation pipe: strips unknown fields, converts types, and reports one failure by field name. */
export function createValidationPipe(): PipeTransform {
  return new RelayValidationPipe(
    new ParamTextValidationPipe({
      ...VALIDATOR_OPTIONS,
      transform: true,
      exceptionFactory: (errors) => validationFailure(errors),
    }),
  );
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
