import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ErrorMessages } from '../../../common/errors/error-messages';
import { badRequest, notFound } from '../../../common/errors/http-error';
import { readId } from '../../../common/validation/parse-id.pipe';
import type { CompareTarget } from '../build-contents.service';

const TO_MESSAGE = 'to must be a build id, previous or last_done';

/** GET /builds/:id/compare query. */
export class CompareQuery {
  @ApiPropertyOptional({
    description:
      'the build to compare with: a build id, `previous` (the app\'s build on the same platform uploaded just before; the default) ' +
      'or `last_done` (the latest Done one uploaded before)',
    example: 'previous',
    default: 'previous',
  })
  @IsOptional()
  @IsString({ message: TO_MESSAGE })
  to?: string;
}

/** `to` as a target: the two words, else an id by readId's rule (an id past MAX_ID names no build: 404). */
export function compareTarget(query: CompareQuery): CompareTarget {
  const to = query.to ?? 'previous';
  if (to === 'previous' || to === 'last_done') return to;
  if (!/^\d+$/.test(to)) throw badRequest(TO_MESSAGE);
  const id = readId(to, 'to');
  if (id === null) throw notFound(ErrorMessages.buildNotFound);
  return id;
}
