import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { ErrorMessages } from '../common/errors/error-messages';
import { RelayLogger } from './relay-logger';

@ApiTags('relay')
@Controller('logs')
export class LogsController {
  constructor(private readonly logger: RelayLogger) {}

  /** The newest log lines; `lines` 1–500 (non-number → 100, out of range → clamped). Relay host only. */
  @Get()
  @Auth({ public: true, hostOnly: ErrorMessages.logsNotFromHost })
  list(@Query('lines') lines?: string): string[] {
    return this.logger.buffer.tail(clampLines(lines));
  }
}

export function clampLines(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return 100;
  return Math.min(500, Math.max(1, Math.trunc(n)));
}
