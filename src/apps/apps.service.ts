import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import type { AppEntity, AppPlatform } from '../app-catalogue/app.entity';
import { BuildQueryService } from '../builds/build-query.service';
import { BuildRetentionService } from '../builds/build-retention.service';
import { ErrorMessages } from '../common/errors/error-messages';
import { notFound } from '../common/errors/http-error';
import { TransactionRunner } from '../database/transaction-runner';
import type { AppWithLatestBuild } from './apps.mapper';

/**
 * The /apps endpoints: listing with each app's latest build, explicit create/rename, and deletion
 * with everything filed under the app. Apps live in the catalogue, builds in builds; this service
 * only composes the two.
 */
@Injectable()
export class AppsService {
  constructor(
    private readonly catalogue: AppCatalogue,
    private readonly builds: BuildQueryService,
    private readonly retention: BuildRetentionService,
    private readonly transactions: TransactionRunner,
    private readonly events: EventEmitter2,
  ) {}

  /** Every app with its latest build: newest activity first, apps without builds last (newest first). */
  async list(): Promise<AppWithLatestBuild[]> {
    const [apps, latest] = await Promise.all([this.catalogue.all(), this.builds.latestPerApp()]);
    const latestByApp = new Map(latest.map((build) => [build.appId, build]));
    return apps
      .map((app) => ({ app, latest: latestByApp.get(app.id) ?? null }))
      .sort((a, b) => {
        const aTime = a.latest?.uploadedAt.getTime() ?? -Infinity;
        const bTime = b.latest?.uploadedAt.getTime() ?? -Infinity;
        return bTime - aTime || b.app.id - a.app.id;
      });
  }

  create(input: { name: string; bundleIdKey: string; platform: AppPlatform }): Promise<AppEntity> {
    return this.catalogue.create(input);
  }

  async rename(id: number, name: string): Promise<void> {
    if (!(await this.catalogue.rename(id, name))) throw notFound(ErrorMessages.appNotFound);
  }

  /**
   * The app's builds and the app in one transaction (comments follow their builds through the
   * foreign key); builds removes the files and announces the deletion after the commit. A crash
   * in between leaves unreferenced files, which the start-up sweep removes.
   */
  async delete(actor: Principal, id: number): Promise<void> {
    const builds = await this.transactions.run(async () => {
      // First hold the app, so a build filed under it meanwhile is either listed below or refused.
      if (!(await this.catalogue.lockForDeletion(id))) throw notFound(ErrorMessages.appNotFound);
      const deleted = await this.retention.deleteAllOfApp(id);
      await this.catalogue.delete(id);
      return deleted;
    });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'app.deleted', `app:${id}`, { builds }));
  }
}
