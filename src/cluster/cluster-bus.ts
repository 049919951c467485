import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { RelayConfig } from '../config/relay-config';

export type ChannelHandler = (message: Buffer) => void;

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
  private readonly handlers = new Map<string, ChannelHandler[]>();
  private readonly prefix: string;

  constructor(config: RelayConfig) {
    this.prefix = config.redis?.prefix ?? '';
    if (!config.redis) {
      this.commands = this.subscriber = null;
      return;
    }
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
  }

  async publish(channel: string, message: Buffer | string): Promise<void> {
    if (!this.commands) return;
    await this.commands.publish(this.key(channel), message);
  }

  /** Calls `handler` with every message on `channel` (under the prefix), from any instance, this one included. */
  async subscribe(channel: string, handler: ChannelHandler): Promise<void> {
    if (!this.subscriber) return;
    const name = this.key(channel);
    const list = this.handlers.get(name) ?? [];
    list.push(handler);
    this.handlers.set(name, list);
    if (list.length === 1) await this.subscriber.subscribe(name);
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
    await Promise.all(
      [this.subscriber, this.commands].map((client) => client?.quit().catch(() => client.disconnect())),
    );
  }

  private deliver(channel: string, message: Buffer): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(message);
      } catch (err) {
        this.logger.error(`Handling a message on ${channel} failed: ${(err as Error).message}`, (err as Error).stack);
      }
    }
  }
}
