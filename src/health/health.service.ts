import { HttpStatus, Injectable } from '@nestjs/common';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { DatabaseServerRepository } from '../database/database-server.repository';
import { RELAY_VERSION } from '../relay/relay-version';
import { ClusterBus } from '../cluster/cluster-bus';
import { Clock } from '../common/clock';
import { HttpError } from '../common/errors/http-error';
import { DISK_RESERVE_BYTES, freeBytes } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../storage/storage-paths';
import { FileStore } from '../storage/file-store';
import type { DependencyState, HealthDependencies, HealthResponse } from './health.mapper';

export const DATABASE_UNAVAILABLE = 'Database unavailable';
export const STORAGE_UNAVAILABLE = 'Storage unavailable';
export const REDIS_UNAVAILABLE = 'Redis unavailable';

/**
 * Readiness (GET /health): the instance can serve requests when its database answers, its file
 * store answers (the data folder is readable and writable, or the S3 bucket answers HEAD) and its
 * local temp folder, where uploads arrive first, is writable with the free-disk reserve still free
 * (below it every large upload answers 507), and, when several instances share Redis, Redis answers; otherwise 503 naming
 * what is down, so a load balancer sends traffic elsewhere. Liveness (GET /health/live) checks
 * nothing but the process: a database outage must not make an orchestrator restart every instance.
 */
@Injectable()
export class HealthService {
  private readonly startedAtMs: number;

  constructor(
    private readonly databaseServer: DatabaseServerRepository,
    private readonly paths: StoragePaths,
    private readonly store: FileStore,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
  ) {
    this.startedAtMs = clock.nowMs();
  }

  async check(): Promise<HealthResponse> {
    const [database, storage, redis] = await Promise.all([this.database(), this.storage(), this.redis()]);
    const dependencies: HealthDependencies = { database, storage, redis };
    const down = [
      database === 'down' && DATABASE_UNAVAILABLE,
      storage === 'down' && STORAGE_UNAVAILABLE,
      redis === 'down' && REDIS_UNAVAILABLE,
    ].filter((message): message is string => !!message);
    if (down.length) throw new HttpError(HttpStatus.SERVICE_UNAVAILABLE, down.join('; '));
    return {
      status: 'ok',
      version: RELAY_VERSION,
      uptimeSeconds: Math.floor((this.clock.nowMs() - this.startedAtMs) / 1000),
      dependencies,
    };
  }

  private async database(): Promise<DependencyState> {
    return (await this.databaseServer.answers()) ? 'ok' : 'down';
  }

  private async storage(): Promise<DependencyState> {
    if (freeBytes(this.paths.tmp) < DISK_RESERVE_BYTES) return 'down';
    try {
      await Promise.all([access(this.paths.tmp, constants.W_OK), this.store.check()]);
      return 'ok';
    } catch {
      return 'down';
    }
  }

  private async redis(): Promise<DependencyState> {
    if (!this.bus.clustered) return 'not_used';
    return (await this.bus.healthy()) ? 'ok' : 'down';
  }
}
