import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AgentConnection } from './agent-connection';
import { RelayMetrics } from '../metrics/relay-metrics';
import type { BinaryPayload, ResponseFrame } from './protocol/agent-protocol';

/** How a request to an agent ended. */
export type RpcOutcome =
  | { kind: 'ok'; result: unknown; payload: BinaryPayload | null }
  | { kind: 'error'; code: string; message: string }
  | { kind: 'offline' }
  /** The agent is not reading its socket (back-pressure): nothing was sent. */
  | { kind: 'busy' }
  | { kind: 'timeout' };

/** Methods named in metrics; any other a client forwards counts as `other`, so the series stay few. */
const KNOWN_METHODS = new Set([
  'screenshot',
  'ui_tree',
  'tap',
  'swipe',
  'type_text',
  'press_button',
  'launch_app',
  'install_build',
]);

interface Pending {
  connection: AgentConnection;
  timer: NodeJS.Timeout;
  resolve: (outcome: RpcOutcome) => void;
}

/**
 * Requests to agents and their answers, correlated by a fresh id per request. Each request has a
 * timer; an answer after it, for an unknown id, or from another socket than the one asked is
 * dropped. A socket that closes ends its pending requests as `offline`.
 */
@Injectable()
export class AgentRpcService implements OnModuleDestroy {
  private readonly logger = new Logger('AgentRpc');
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly metrics: RelayMetrics) {}

  async call(connection: AgentConnection, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<RpcOutcome> {
    const started = process.hrtime.bigint();
    const outcome = await this.request(connection, method, params, timeoutMs);
    const label = KNOWN_METHODS.has(method) ? method : 'other';
    this.metrics.agentRequest(label, outcome.kind, Number(process.hrtime.bigint() - started) / 1e9);
    return outcome;
  }

  private request(connection: AgentConnection, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<RpcOutcome> {
    const id = randomUUID();
    return new Promise<RpcOutcome>((resolve) => {
      const timer = setTimeout(() => this.finish(id, { kind: 'timeout' }), timeoutMs);
      this.pending.set(id, { connection, timer, resolve });
      const sent = connection.send({ type: 'request', id, method, params });
      if (sent !== 'sent') this.finish(id, { kind: sent === 'busy' ? 'busy' : 'offline' });
    });
  }

  /** An agent's response frame. */
  settle(connection: AgentConnection, response: ResponseFrame): void {
    const entry = this.pending.get(response.id);
    if (!entry || entry.connection !== connection) {
      this.logger.debug(`Dropped a response from agent ${connection.name} for no pending request (late or unknown id)`);
      return;
    }
    this.finish(
      response.id,
      response.ok
        ? { kind: 'ok', result: response.result, payload: response.payload }
        : { kind: 'error', code: response.error.code, message: response.error.message },
    );
  }

  connectionClosed(connection: AgentConnection): void {
    for (const [id, entry] of this.pending) {
      if (entry.connection === connection) this.finish(id, { kind: 'offline' });
    }
  }

  onModuleDestroy(): void {
    for (const id of [...this.pending.keys()]) this.finish(id, { kind: 'offline' });
  }

  private finish(id: string, outcome: RpcOutcome): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(outcome);
  }
}
