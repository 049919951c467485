import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { EntityManager } from 'typeorm';
import type { Platform } from '../builds/build-status';
import { BuildsDeletedEvent } from '../builds/events/builds-deleted.event';
import { BuildFiles } from '../builds/storage/build-files';
import { Clock } from '../common/clock';
import { badRequest, notFound } from '../common/errors/relay-exception';
import { ErrorMessages } from '../common/errors/error-messages';
import { StoragePaths } from '../common/storage/storage-paths';
import type { AppEntity, AppPlatform } from './app.entity';
import { AppsRepository, AppWithLatestBuild } from './apps.repository';

/** Apps: listing with their latest build, explicit create/rename, and deletion with everything filed under them. */
@Injectable()
export class AppsService {
  private readonly files: BuildFiles;

  constructor(
    private readonly apps: AppsRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    paths: StoragePaths,
  ) {
    this.files = new BuildFiles(paths);
  }

  /**
   * The app a new build files under, inside the caller's transaction: the explicit `appId` (404 when
   * unknown), else the app whose bundle_id_key is the build's bundle id and whose platform is the
   * build's or `both`, else a new app named after the build.
   */
  async resolveForBuild(
    build: { appId: number | null; bundleId: string; platform: Platform; name: string },
    manager: EntityManager,
  ): Promise<AppEntity> {
    if (build.appId !== null) {
      const app = await this.apps.findById(build.appId, manager);
      if (!app) throw notFound(ErrorMessages.appNotFound);
      if (app.platform !== 'both' && app.platform !== build.platform) {
        throw badRequest(`app_id ${app.id} is an ${app.platform} app; this build is ${build.platform}`);
      }
      return app;
    }
    return (
      (await this.apps.findForBundle(build.bundleId, build.platform, manager)) ??
      (await this.apps.create(
        { name: build.name, bundleIdKey: build.bundleId, platform: build.platform, createdAt: this.clock.now() },
        manager,
      ))
    );
  }

  list(): Promise<AppWithLatestBuild[]> {
    return this.apps.listWithLatestBuild();
  }

  create(input: { name: string; bundleIdKey: string; platform: AppPlatform }): Promise<AppEntity> {
    return this.apps.create({ ...input, createdAt: this.clock.now() });
  }

  async rename(id: number, name: string): Promise<void> {
    if (!(await this.apps.rename(id, name))) throw notFound(ErrorMessages.appNotFound);
  }

  /**
   * Rows first (app and builds in one transaction; comments follow through their foreign key),
   * then files. A crash in between leaves unreferenced files, which the start-up sweep removes.
   */
  async delete(id: number): Promise<void> {
    const builds = await this.apps.deleteWithBuilds(id);
    if (!builds) throw notFound(ErrorMessages.appNotFound);
    if (builds.length) {
      this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(builds.map((b) => b.id), 'app_deleted'));
    }
    await this.files.remove(builds.map((b) => b.fileName));
  }
}
