import { BeforeApplicationShutdown, HttpStatus, Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { HttpError } from '../common/errors/http-error';
import { AUDIT_EVENT, AUDIT_EVENT_IN_TRANSACTION, AuditEvent, AuditEventInTransaction } from './audit-event';
import { AuditLogService } from './audit-log.service';

export const AuditMessages = {
  notRecorded: "The audit log could not record this action, so nothing was done; try again, or ask an Admin to check the relay's log",
} as const;

/**
 * Records what any module emits as AUDIT_EVENT; never throws (a failed write is logged as an error).
 * AUDIT_EVENT_IN_TRANSACTION is written in the emitter's transaction and its failure is the emitter's.
 * Writes still running when the app closes are awaited first, so a CLI command's entry is not lost.
 */
@Injectable()
export class AuditRecorderListener implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly log: AuditLogService) {}

  @OnEvent(AUDIT_EVENT)
  onAuditEvent(event: AuditEvent): Promise<void> {
    const write = this.record(event);
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
    return write;
  }

  @OnEvent(AUDIT_EVENT_IN_TRANSACTION, { suppressErrors: false })
  async onAuditEventInTransaction({ event, transaction }: AuditEventInTransaction): Promise<void> {
    try {
      await this.log.appendIn(transaction, event);
    } catch (err) {
      this.logger.error(`Could not record audit event ${event?.action}, so its action was not done: ${(err as Error).message}`, (err as Error).stack);
      throw new HttpError(HttpStatus.SERVICE_UNAVAILABLE, AuditMessages.notRecorded);
    }
  }

  /** Resolves once every event received so far is written and chained (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
    await this.log.settled();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.idle();
  }

  private async record(event: AuditEvent): Promise<void> {
    try {
      await this.log.append(event);
    } catch (err) {
      this.logger.error(`Could not record audit event ${event?.action}: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
