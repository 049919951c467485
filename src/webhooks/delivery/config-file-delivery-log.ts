import { Injectable } from '@nestjs/common';
import { AttemptRecord, DELIVERY_LOG_SIZE } from './delivery-log.repository';

/**
 * The delivery log of svc.config.json entries, in memory: they have no database row to hang a log
 * on (and their index may name another URL after the file is edited and the relay restarted), so
 * each instance keeps the newest DELIVERY_LOG_SIZE attempts it made per entry until it stops. The
 * relay log (/logs) carries the same attempts, as it always did.
 */
@Injectable()
export class ConfigFileDeliveryLog {
  private readonly byEntry = new Map<number, AttemptRecord[]>();

  record(index: number, attempt: AttemptRecord): void {
    const log = [attempt, ...(this.byEntry.get(index) ?? [])];
    // Newest first by attempt time, like the database log: attempts finish in any order.
    log.sort((a, b) => b.attemptedAt.getTime() - a.attemptedAt.getTime());
    this.byEntry.set(index, log.slice(0, DELIVERY_LOG_SIZE));
  }

  latest(index: number): AttemptRecord[] {
    return this.byEntry.get(index) ?? [];
  }
}
