import { Injectable, PipeTransform } from '@nestjs/common';
import { badRequest } from '../errors/relay-exception';

/**
 * Ids as clients send them (path, query string, form field): positive decimal integers only, so
 * "1x", "-1", "1e3" or "01" are refused with a 400 rather than a 500 or a wrong row.
 */
export function isPositiveId(text: string): boolean {
  return /^[1-9]\d{0,15}$/.test(text);
}

/** Path ids: see isPositiveId. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!isPositiveId(value ?? '')) throw badRequest('id must be a positive integer');
    return Number(value);
  }
}
