import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { RelayConfig } from '../config/relay-config';
import { ClusterSeal, SEAL_BYTES } from './cluster-seal';
import { DropReports } from './drop-reports';

export type ChannelHandler = (message: Buffer) => void | Promise<void>;

/** The ceiling for small JSON messages between instances (claims, requests without a big parameter). */
export const CONTROL_MESSAGE_BYTES = 64 * 1024;

/** Each instance says it is alive with a key of this lifetime, renewed three times within it. */
export const PRESENCE_LEASE_MS = 9_000;

/** Deletes a key only while it still holds our value: a lock that expired and was taken by another instance is not ours to free. */
const RELEASE_IF_OURS = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * What several relay instances share, through Redis (docs/scaling.md): channels (pub/sub), keys,
 * and locks with an expiry. Without SVC_REDIS_URL the relay is alone: `clustered` is false, nothing
 * is published, every lock is granted, and callers keep their in-memory behaviour.
 *
 * Two connections, because a Redis connection in subscriber mode can run no other command.
 */
@Injectable()
export class ClusterBus implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Cluster');
  /** This process among the instances: names its RPC channel and the locks it holds. */
  readonly instanceId = randomUUID();
  private readonly commands: Redis | null;
  private readonly subscriber: Redis | null;
  private readonly handlers = new Map<string, { handler: ChannelHandler; maxBytes: number }[]>();
  private readonly prefix: string;
  private readonly seal: ClusterSeal | null;
  private readonly dropped = new DropReports(this.logger);
  private presence: NodeJS.Timeout | null = null;

  constructor(config: RelayConfig) {
    this.prefix = config.redis?.prefix ?? '';
    if (!config.redis) {
      this.commands = this.subscriber = this.seal = null;
      return;
    }
    this.seal = new ClusterSeal(Buffer.from(config.redis.secret, 'utf8'), this.instanceId);
    // Commands fail fast while Redis is away (no queue growing without bound); the client reconnects by itself.
    const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
    // Loaded only when Redis is configured: a relay alone never needs the client (start-up time and
    // idle memory, docs/decisions.md#s1).
    const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.commands = new RedisClient(config.redis.url, options);
    this.subscriber = new RedisClient(config.redis.url, options);
    for (const client of [this.commands, this.subscriber]) {
      client.on('error', (err: Error) => this.logger.warn(`Redis: ${err.message}`));
    }
    this.subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => this.deliver(channel.toString(), message));
  }

  get clustered(): boolean {
    return this.commands !== null;
  }

  /** The command connection (clustered only): for services that keep shared state in Redis. */
  get redis(): Redis {
    if (!this.commands) throw new Error('Redis is not configured (SVC_REDIS_URL)');
    return this.commands;
  }

  /** A key or channel name under this relay's prefix. */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** Start-up waits for both connections, so an unreachable Redis stops the relay with its error. */
  async onModuleInit(): Promise<void> {
    if (!this.commands || !this.subscriber) return;
    await Promise.all([this.commands.ping(), this.subscriber.ping()]);
    await this.sayAlive();
    this.presence = setInterval(() => void this.sayAlive(), PRESENCE_LEASE_MS / 3);
    this.presence.unref?.();
  }

  /**
   * Whether an instance is running: it renews its presence key every few seconds, so one that
   * died (or lost Redis) is gone within PRESENCE_LEASE_MS. Alone, only this instance is.
   */
  async alive(instanceId: string): Promise<boolean> {
    if (!this.commands) return instanceId === this.instanceId;
    return (await this.commands.exists(this.key(`instances:${instanceId}`))) === 1;
  }

  private async sayAlive(): Promise<void> {
    await this.commands
      ?.set(this.key(`instances:${this.instanceId}`), '1', 'PX', PRESENCE_LEASE_MS)
      .catch((err: Error) => this.logger.warn(`Renewing this instance's presence in Redis failed: ${err.message}`));
  }

  /**
   * Publishes `message` (or its parts, sent as one message without joining them first) signed with
   * the cluster secret. Resolves with how many subscribers Redis handed it to (0 alone).
   */
  async publish(channel: string, message: Buffer | string | readonly Buffer[]): Promise<number> {
    if (!this.commands || !this.seal) return 0;
    const parts = typeof message === 'string' ? [Buffer.from(message)] : Buffer.isBuffer(message) ? [message] : message;
    const name = this.key(channel);
    return this.commands.publish(name, this.seal.seal(name, parts));
  }

  /**
   * Calls `handler` with every message on `channel` (under the prefix), from any instance, this one
   * included: only messages of at most `maxBytes` signed by an instance with the cluster secret;
   * the others are logged and dropped before anything reads them (Redis is a trust boundary).
   */
  async subscribe(channel: string, maxBytes: number, handler: ChannelHandler): Promise<void> {
    if (!this.subscriber) return;
    const name = this.key(channel);
    const list = this.handlers.get(name) ?? [];
    list.push({ handler, maxBytes });
    this.handlers.set(name, list);
    if (list.length === 1) await this.subscriber.subscribe(name);
  }

  /**
   * subscribe() for JSON messages: `handler` gets only those that fit `schema` (`reviver` as for
   * JSON.parse). The schema is asked for when a message comes (clusterSchema builds it then).
   */
  async subscribeJson<S extends z.ZodType>(
    channel: string,
    schema: () => S,
    handler: (message: z.output<S>) => void | Promise<void>,
    options: { maxBytes?: number; reviver?: (key: string, value: unknown) => unknown } = {},
  ): Promise<void> {
    await this.subscribe(channel, options.maxBytes ?? CONTROL_MESSAGE_BYTES, (message) => {
      const value = this.parseJson(message, options.reviver);
      const parsed = value === undefined ? null : schema().safeParse(value);
      if (!parsed?.success) return this.reportDropped(this.key(channel), parsed ? describeIssue(parsed.error) : 'not JSON', message);
      return handler(parsed.data);
    });
  }

  /**
   * A value read back from a shared key, checked like a message: what does not fit `schema` is
   * logged and taken as absent (null). `json`: the value is JSON text, else the string itself.
   */
  stored<S extends z.ZodType>(key: string, raw: string | null | undefined, schema: () => S, json = false): z.output<S> | null {
    if (raw === null || raw === undefined) return null;
    const value = json ? this.parseJson(Buffer.from(raw)) : raw;
    const parsed = value === undefined ? null : schema().safeParse(value);
    if (parsed?.success) return parsed.data;
    this.dropped.report(`Ignored the value of ${key} in Redis: ${parsed ? describeIssue(parsed.error) : 'not JSON'}`, Buffer.from(raw));
    return null;
  }

  /** Logs (rate-limited) that a message on `channel` was not used, with a bounded excerpt of it. */
  reportDropped(channel: string, reason: string, message: Buffer): void {
    this.dropped.report(`Dropped a message on ${channel}: ${reason}`, message);
  }

  /** True when Redis answers (or is not used); for GET /health. */
  async healthy(): Promise<boolean> {
    if (!this.commands) return true;
    try {
      return (await this.commands.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /**
   * Runs `work` on this instance only if no other instance is running work under the same name:
   * a lock in Redis that expires after `ttlMs` (so an instance that dies holding it blocks nobody
   * for long), freed when the work ends. Returns false, without running it, when another holds it.
   * Alone (no Redis) the work always runs.
   */
  async exclusive(name: string, ttlMs: number, work: () => Promise<unknown>): Promise<boolean> {
    if (!this.commands) {
      await work();
      return true;
    }
    const key = this.key(`lock:${name}`);
    const token = `${this.instanceId}:${randomUUID()}`;
    try {
      if ((await this.commands.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return false;
    } catch (err) {
      this.logger.warn(`Lock ${name} not taken (Redis unavailable), skipping this round: ${(err as Error).message}`);
      return false;
    }
    try {
      await work();
    } finally {
      await this.commands.eval(RELEASE_IF_OURS, 1, key, token).catch((err: Error) => {
        this.logger.warn(`Releasing lock ${name} failed (it expires by itself): ${err.message}`);
      });
    }
    return true;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.presence) clearInterval(this.presence);
    await this.commands?.del(this.key(`instances:${this.instanceId}`)).catch(() => undefined);
    await Promise.all(
      [this.subscriber, this.commands].map((client) => client?.quit().catch(() => client.disconnect())),
    );
  }

  private deliver(channel: string, message: Buffer): void {
    const list = this.handlers.get(channel);
    if (!list || !this.seal) return;
    // Checked before the MAC is computed over it, let alone parsed.
    if (message.length > Math.max(...list.map((h) => h.maxBytes)) + SEAL_BYTES) {
      return this.reportDropped(channel, `${message.length} bytes, over the limit for this channel`, message);
    }
    const opened = this.seal.open(channel, message);
    if ('refused' in opened) return this.reportDropped(channel, opened.refused, message);
    for (const { handler } of list) {
      const failed = (err: Error) => this.logger.error(`Handling a message on ${channel} failed: ${err.message}`, err.stack);
      try {
        // A handler's rejection is caught here too: an unhandled one would end the process.
        void Promise.resolve(handler(opened.body)).catch(failed);
      } catch (err) {
        failed(err as Error);
      }
    }
  }

  private parseJson(message: Buffer, reviver?: (key: string, value: unknown) => unknown): unknown {
    try {
      return JSON.parse(message.toString('utf8'), reviver) as unknown;
    } catch {
      return undefined;
    }
  }
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue.path.length ? issue.path.join('.') : 'message'}: ${issue.message}`;
}
