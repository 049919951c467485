import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { readFileSync } from 'node:fs';
import { connect as connectTcp, isIP, Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { RelayConfig } from '../../config/relay-config';
import { AuditEntryEntity } from '../audit-entry.entity';
import { AUDIT_APPENDED } from '../audit-log.service';
import { toAuditEntry } from '../audit.mapper';
import { syslogFrame } from './syslog-frame';

/** Entries waiting while a destination is down; past it the oldest are dropped, with a warning. */
const MAX_PENDING = 10_000;
const RECONNECT_MS = 1_000;

/**
 * Sends each written entry to the configured syslog collector (one TCP or TLS connection, frames in
 * order, reconnecting after a second) and/or HTTP endpoint (one POST at a time, in order). The table
 * stays the record: forwarding never delays or fails a write.
 */
@Injectable()
export class AuditForwarder implements OnApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly syslogQueue: Buffer[] = [];
  private socket: Socket | null = null;
  private connecting = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly httpQueue: string[] = [];
  private posting = false;
  private stopped = false;

  constructor(private readonly config: RelayConfig) {}

  @OnEvent(AUDIT_APPENDED)
  onAppended(entry: AuditEntryEntity): void {
    try {
      if (this.stopped) return;
      const shown = toAuditEntry(entry);
      if (this.config.audit.syslog) {
        this.enqueue(this.syslogQueue, syslogFrame(shown), 'syslog');
        this.flushSyslog();
      }
      if (this.config.audit.httpUrl) {
        this.enqueue(this.httpQueue, JSON.stringify(shown), 'HTTP');
        void this.flushHttp();
      }
    } catch (err) {
      this.logger.error(`Audit forwarding failed: ${(err as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.socket?.end();
    this.socket = null;
  }

  private enqueue<T>(queue: T[], item: T, what: string): void {
    queue.push(item);
    if (queue.length > MAX_PENDING) {
      queue.shift();
      this.logger.warn(`Audit ${what} destination unreachable: dropped the oldest waiting entry (the table keeps it)`);
    }
  }

  private flushSyslog(): void {
    if (!this.socket) return this.connectSyslog();
    while (this.syslogQueue.length && !this.socket.writableNeedDrain) {
      this.socket.write(this.syslogQueue.shift()!);
    }
  }

  private connectSyslog(): void {
    const target = this.config.audit.syslog;
    if (!target || this.connecting || this.stopped || this.reconnectTimer) return;
    this.connecting = true;
    const socket = target.tls
      ? connectTls({
          host: target.host,
          port: target.port,
          // SNI names hosts only (RFC 6066); the certificate is still checked against an IP address.
          ...(isIP(target.host) ? {} : { servername: target.host }),
          ...(target.caFile ? { ca: readFileSync(target.caFile) } : {}),
        })
      : connectTcp({ host: target.host, port: target.port });
    const ready = target.tls ? 'secureConnect' : 'connect';
    socket.once(ready, () => {
      this.connecting = false;
      this.socket = socket;
      socket.on('drain', () => this.flushSyslog());
      this.flushSyslog();
    });
    socket.on('error', (err) => this.logger.warn(`Audit syslog ${target.host}:${target.port}: ${err.message}`));
    socket.on('close', () => {
      this.connecting = false;
      if (this.socket === socket) this.socket = null;
      if (this.stopped) return;
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        if (this.syslogQueue.length) this.connectSyslog();
      }, RECONNECT_MS);
      this.reconnectTimer.unref();
    });
  }

  private async flushHttp(): Promise<void> {
    if (this.posting) return;
    this.posting = true;
    try {
      while (this.httpQueue.length && !this.stopped) {
        const body = this.httpQueue[0];
        try {
          const res = await fetch(this.config.audit.httpUrl!, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              ...(this.config.audit.httpAuthorization ? { Authorization: this.config.audit.httpAuthorization } : {}),
            },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer().catch(() => undefined);
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          this.httpQueue.shift();
        } catch (err) {
          this.logger.warn(`Audit HTTP forwarding: ${(err as Error).message}; retrying in ${RECONNECT_MS} ms`);
          await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref());
        }
      }
    } finally {
      this.posting = false;
    }
  }
}
