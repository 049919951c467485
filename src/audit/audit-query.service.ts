import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { once } from 'node:events';
import { badRequest } from '../common/errors/http-error';
import { MAX_ID } from '../common/validation/parse-id.pipe';
import { AuditFilter, AuditLogService } from './audit-log.service';
import { AuditPage, toAuditEntry, toCsvRow, CSV_COLUMNS } from './audit.mapper';
import { AuditFilterQuery, DEFAULT_AUDIT_PAGE, ExportFormat, ListAuditQuery } from './dto/audit-query.dto';

/** GET /audit and its export: filters read once, pages by an id cursor, the export streamed with backpressure. */
@Injectable()
export class AuditQueryService {
  constructor(private readonly log: AuditLogService) {}

  async page(query: ListAuditQuery): Promise<AuditPage> {
    const limit = query.limit ?? DEFAULT_AUDIT_PAGE;
    const before = query.cursor === undefined ? undefined : readCursor(query.cursor);
    const rows = await this.log.page(filterOf(query), limit, before);
    return {
      items: rows.map(toAuditEntry),
      next_cursor: rows.length === limit ? String(rows[rows.length - 1].id) : null,
    };
  }

  async export(query: AuditFilterQuery, format: ExportFormat, res: Response): Promise<void> {
    const filter = filterOf(query);
    res.status(200);
    res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="audit.${format}"`);
    res.setHeader('Cache-Control', 'no-store');
    if (format === 'csv') await write(res, `${CSV_COLUMNS.join(',')}\r\n`);
    try {
      for await (const entry of this.log.inOrder(filter)) {
        if (res.destroyed) return;
        const shown = toAuditEntry(entry);
        await write(res, format === 'csv' ? `${toCsvRow(shown)}\r\n` : `${JSON.stringify(shown)}\n`);
      }
      res.end();
    } catch (err) {
      // Headers are gone: the only honest signal left is a cut response (no clean end).
      res.destroy(err as Error);
    }
  }
}

function filterOf(query: AuditFilterQuery): AuditFilter {
  const since = query.since ? new Date(query.since) : undefined;
  const until = query.until ? new Date(query.until) : undefined;
  if (since && until && since.getTime() > until.getTime()) throw badRequest('since must not be after until');
  return { action: query.action || undefined, actor: query.actor || undefined, target: query.target || undefined, since, until };
}

function readCursor(cursor: string): number {
  if (!/^[1-9]\d{0,9}$/.test(cursor) || Number(cursor) > MAX_ID + 1) throw badRequest('cursor is not valid');
  return Number(cursor);
}

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}
