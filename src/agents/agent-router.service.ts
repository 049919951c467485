import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ClusterBus } from '../cluster/cluster-bus';
import { AgentDirectory } from './agent-directory.service';
import type { SessionPlace } from './agent-locator.service';
import { AgentRpcService, RpcOutcome } from './agent-rpc.service';
import { binaryFramePrefix, decodeBinaryFrame } from './protocol/agent-protocol';
import {
  MAX_REMOTE_REPLY_BYTES,
  MAX_REMOTE_REQUEST_BYTES,
  RemoteRequest,
  remoteReplySchema,
  remoteRequestSchema,
} from './protocol/cluster-messages';

/** Past the agent's own timeout, what the asking side allows for the hop through Redis before it answers `timeout` itself. */
const RELAY_GRACE_MS = 2_000;

interface Waiting {
  timer: NodeJS.Timeout;
  resolve: (outcome: RpcOutcome) => void;
}

/**
 * Sends a request to the agent that owns a session, wherever its socket is. Held here: straight to
 * AgentRpcService. Held by another instance (docs/scaling.md): the request goes to that instance's
 * channel in Redis, it asks its agent with the same timeout, and publishes the outcome back (binary
 * payloads as one binary message, as the agent sent them); so statuses and timeouts are the same
 * as on one relay. Nobody polls: both sides wait on pub/sub messages. An instance that vanished
 * mid-request is a `timeout` here, after the agent's timeout and a short grace. Only requests and
 * answers signed by an instance with the cluster secret and of the expected shape get here
 * (ClusterBus): whoever else can publish on Redis cannot make an agent act.
 */
@Injectable()
export class AgentRouter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('AgentRpc');
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly bus: ClusterBus,
    private readonly directory: AgentDirectory,
    private readonly rpc: AgentRpcService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.bus.subscribeJson(requestChannel(this.bus.instanceId), remoteRequestSchema, (request) => this.serve(request), {
      maxBytes: MAX_REMOTE_REQUEST_BYTES,
    });
    await this.bus.subscribe(replyChannel(this.bus.instanceId), MAX_REMOTE_REPLY_BYTES, (message) => this.settle(message));
  }

  onModuleDestroy(): void {
    for (const id of [...this.waiting.keys()]) this.finish(id, { kind: 'offline' });
  }

  call(place: SessionPlace, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<RpcOutcome> {
    if (place.connection) return this.rpc.call(place.connection, method, params, timeoutMs);
    if (!place.instanceId || !this.bus.clustered || place.instanceId === this.bus.instanceId) {
      return Promise.resolve({ kind: 'offline' });
    }
    return this.ask(place.instanceId, place.agentName, method, params, timeoutMs);
  }

  private ask(instanceId: string, agentName: string, method: string, params: Record<string, unknown>, timeoutMs: number) {
    const request: RemoteRequest = { id: randomUUID(), replyTo: this.bus.instanceId, agentName, method, params, timeoutMs };
    return new Promise<RpcOutcome>((resolve) => {
      const timer = setTimeout(() => this.finish(request.id, { kind: 'timeout' }), timeoutMs + RELAY_GRACE_MS);
      this.waiting.set(request.id, { timer, resolve });
      this.bus.publish(requestChannel(instanceId), JSON.stringify(request)).catch((err: Error) => {
        this.logger.warn(`Forwarding ${method} to the instance holding agent ${agentName} failed: ${err.message}`);
        this.finish(request.id, { kind: 'offline' });
      });
    });
  }

  /**
   * Another instance's request for an agent whose socket is (or was) here. Never rejects: an
   * unexpected failure is logged, and the asking instance answers `timeout` after its grace.
   */
  private async serve(request: RemoteRequest): Promise<void> {
    try {
      const connection = this.directory.connection(request.agentName);
      const outcome: RpcOutcome = connection
        ? await this.rpc.call(connection, request.method, request.params, request.timeoutMs)
        : { kind: 'offline' };
      const { payload, ...rest } = outcome.kind === 'ok' ? outcome : { ...outcome, payload: null };
      // The payload's chunks as the agent sent them, after the header: published as one message, not joined here.
      await this.bus.publish(replyChannel(request.replyTo), [binaryFramePrefix({ id: request.id, outcome: rest }), ...(payload ?? [])]);
    } catch (err) {
      this.logger.warn(`Answering a forwarded ${request.method} for agent ${request.agentName} failed: ${(err as Error).message}`);
    }
  }

  private settle(message: Buffer): void {
    const frame = decodeBinaryFrame(message);
    const header = frame && remoteReplySchema().safeParse(frame.header);
    if (!frame || !header?.success) {
      return this.bus.reportDropped(this.bus.key(replyChannel(this.bus.instanceId)), 'not an answer to a forwarded request', message);
    }
    const { id, outcome } = header.data;
    this.finish(id, outcome.kind === 'ok' ? { ...outcome, payload: frame.payload.length ? [frame.payload] : null } : outcome);
  }

  private finish(id: string, outcome: RpcOutcome): void {
    const entry = this.waiting.get(id);
    if (!entry) return;
    this.waiting.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(outcome);
  }
}

const requestChannel = (instanceId: string) => `rpc:request:${instanceId}`;
const replyChannel = (instanceId: string) => `rpc:reply:${instanceId}`;
