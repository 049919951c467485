import { ValidationError, ValidationPipe } from '@nestjs/common';
import { badRequest } from '../errors/relay-exception';

/** The one validation pipe: strips unknown fields, converts types, and reports the first failure by field name. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    exceptionFactory: (errors) => badRequest(firstMessage(errors) ?? 'Invalid request'),
  });
}

function firstMessage(errors: ValidationError[], parent = ''): string | undefined {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraint = error.constraints && Object.values(error.constraints)[0];
    if (constraint) return constraint.startsWith(error.property) && parent ? `${parent}.${constraint}` : constraint;
    const nested = error.children && firstMessage(error.children, path);
    if (nested) return nested;
  }
  return undefined;
}
