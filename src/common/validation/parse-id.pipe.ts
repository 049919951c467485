import { Injectable, PipeTransform } from '@nestjs/common';
import { badRequest } from '../errors/relay-exception';

/** Path ids: positive decimal integers only ("1x", "-1", "1e3" are 400, not 500 or a wrong row). */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9]\d{0,15}$/.test(value ?? '')) throw badRequest('id must be a positive integer');
    return Number(value);
  }
}
