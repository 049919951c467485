import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { DestinationRow } from './outbox.repository';

/** One destination of the outbox as the dashboard shows it; no credential ever appears here. */
export class OutboxDestination {
  @ApiProperty({ description: 'where messages go: `mail`, `slack:<channel>`, `teams:<app id>`, `jira`…', example: 'mail' })
  destination: string;
  @ApiProperty({ example: 'mail' })
  kind: string;
  @ApiProperty()
  queued: number;
  @ApiProperty()
  delivered: number;
  @ApiProperty()
  failed: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  last_attempt_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the newest attempt\'s error (credentials redacted); null when it succeeded' })
  last_error: string | null;
}

export function toOutboxDestination(row: DestinationRow): OutboxDestination {
  return {
    destination: row.destination,
    kind: row.kind,
    queued: row.queued,
    delivered: row.delivered,
    failed: row.failed,
    last_attempt_at: row.lastAttemptAt === null ? null : isoWithMillis(new Date(row.lastAttemptAt)),
    last_error: row.lastError,
  };
}
