import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { AuditEntryEntity } from './audit-entry.entity';

export class AuditEntryResponse {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: 'integer', nullable: true }) actor_id: number | null;
  @ApiProperty() actor: string;
  @ApiProperty({ enum: ['cookie', 'pat', 'mcp', 'scim', 'agent', 'cli', 'system', 'sso', 'anonymous', 'slack'] }) via: string;
  @ApiProperty() action: string;
  @ApiProperty({ type: String, nullable: true }) target: string | null;
  @ApiProperty({ type: String, nullable: true }) client_address: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: Record<string, unknown>;
  @ApiProperty() prev_hash: string;
  @ApiProperty() hash: string;
}

export class AuditPage {
  @ApiProperty({ type: [AuditEntryResponse] }) items: AuditEntryResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as cursor for the next (older) page; null at the end' })
  next_cursor: string | null;
}

export class AuditSettingsResponse {
  @ApiProperty({ type: 'integer', nullable: true }) retention_days: number | null;
}

export function toAuditEntry(entry: AuditEntryEntity): AuditEntryResponse {
  return {
    id: entry.id,
    at: isoWithMillis(entry.at),
    actor_id: entry.actorId,
    actor: entry.actorLabel,
    via: entry.via,
    action: entry.action,
    target: entry.target,
    client_address: entry.clientAddress,
    details: parseDetails(entry.details),
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}

export function parseDetails(text: string): Record<string, string | number | boolean | null> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export const CSV_COLUMNS = ['id', 'at', 'actor_id', 'actor', 'via', 'action', 'target', 'client_address', 'details', 'prev_hash', 'hash'] as const;

/** One CSV record (RFC 4180): every field quoted; a leading = + - @ is prefixed with ' so spreadsheets never run it. */
export function toCsvRow(entry: AuditEntryResponse): string {
  return CSV_COLUMNS.map((column) => {
    const value = entry[column];
    let text = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (/^[=+\-@\t\r]/.test(text) && column !== 'details') text = `'${text}`;
    return `"${text.replace(/"/g, '""')}"`;
  }).join(',');
}
