import { Injectable } from '@nestjs/common';
import type { Platform } from './platform';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import type { Sql } from '../database/sql';
import { TransactionRunner } from '../database/transaction-runner';
import { isUniqueViolation } from '../database/unique-violation';
import type { AppEntity, AppPlatform } from './app.entity';
import { AppsRepository } from './apps.repository';

export const AppMessages = {
  duplicate: 'An app with this bundle id and platform already exists',
} as const;

/** What a build needs to be filed under an app. */
export interface BuildToFile {
  appId: number | null;
  bundleId: string;
  platform: Platform;
  name: string;
}

/**
 * The apps builds are filed under, below both the apps feature and builds: builds asks it which
 * app a new build belongs to, the apps feature creates, renames and deletes apps through it.
 * Writes join the caller's open transaction (TransactionRunner), so no tx crosses modules.
 */
@Injectable()
export class AppCatalogue {
  constructor(
    private readonly apps: AppsRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * The app a new build files under: the explicit `appId` (404 when unknown), else the app whose
   * bundle_id_key is the build's bundle id and whose platform is the build's or `both`, else a new
   * app named after the build. In the intake's transaction (`transaction`, handed over, or the
   * caller's open run()), without a savepoint: every failure here fails the upload, whose rollback
   * also removes an app created here.
   */
  resolveForBuild(build: BuildToFile, transaction?: Sql): Promise<AppEntity> {
    const resolve = async (tx: Sql): Promise<AppEntity> => {
      if (build.appId !== null) {
        const app = await this.apps.findById(build.appId, tx);
        if (!app) throw notFound(ErrorMessages.appNotFound);
        if (app.platform !== 'both' && app.platform !== build.platform) {
          throw badRequest(`app_id ${app.id} is an ${app.platform} app; this build is ${build.platform}`);
        }
        return app;
      }
      const existing = await this.apps.findForBundle(build.bundleId, build.platform, tx);
      if (existing) return existing;
      // Two uploads of a new bundle id at once both get here: the unique key on (platform,
      // bundle_id_key) lets one insert, and the other reads the winner's app.
      await this.apps.insertUnlessExists(
        { name: build.name, bundleIdKey: build.bundleId, platform: build.platform, createdAt: this.clock.now() },
        tx,
      );
      const app = await this.apps.findForBundle(build.bundleId, build.platform, tx);
      if (!app) throw new Error(`app for ${build.platform} ${build.bundleId} neither inserted nor found`);
      return app;
    };
    return transaction ? resolve(transaction) : this.transactions.join(resolve);
  }

  findById(id: number): Promise<AppEntity | null> {
    return this.apps.findById(id);
  }

  all(): Promise<AppEntity[]> {
    return this.apps.findAll();
  }

  /** 409 when an app with this bundle id and platform exists (one app per pair; builds resolve to it). */
  async create(input: { name: string; bundleIdKey: string; platform: AppPlatform }): Promise<AppEntity> {
    try {
      return await this.apps.create({ ...input, createdAt: this.clock.now() });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(AppMessages.duplicate);
      throw err;
    }
  }

  /** False when there is no such app. */
  rename(id: number, name: string): Promise<boolean> {
    return this.apps.rename(id, name);
  }

  /** Inside the caller's transaction, before removing what is filed under the app: false when there is no such app (AppsRepository.lockForDeletion). */
  lockForDeletion(id: number): Promise<boolean> {
    return this.transactions.run((tx) => this.apps.lockForDeletion(id, tx));
  }

  /** Deletes the app row (joining the caller's transaction); false when there was none. */
  delete(id: number): Promise<boolean> {
    return this.transactions.run((tx) => this.apps.delete(id, tx));
  }
}
