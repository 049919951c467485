import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ErrorMessages } from '../common/errors/error-messages';
import { JsonLogger } from './json-logger';

@ApiTags('relay')
@Controller('logs')
export class LogsController {
  constructor(private readonly logger: JsonLogger) {}

  /** The newest log lines; `lines` 1–500 (non-number → 100, out of range → clamped). Relay host only. */
  @Get()
  @Auth({ public: true, hostOnly: ErrorMessages.logsNotFromHost })
  @ApiQuery({
    name: 'lines',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    description: 'non-number gives 100; out of range is clamped',
  })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } }, description: 'newest log lines, oldest first' })
  @ApiErrors(403)
  list(@Query('lines') lines?: string): string[] {
    return this.logger.buffer.tail(clampLines(lines));
  }
}

export function clampLines(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return 100;
  return Math.min(500, Math.max(1, Math.trunc(n)));
}
