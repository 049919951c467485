import { Injectable, Logger } from '@nestjs/common';
import { open } from 'node:fs/promises';
import type { AppEntity } from '../../app-catalogue/app.entity';
import { AppCatalogue } from '../../app-catalogue/app-catalogue.service';
import { Clock } from '../../common/clock';
import { ErrorMessages } from '../../common/errors/error-messages';
import { badRequest, conflict, notFound } from '../../common/errors/http-error';
import { isoWithMillis } from '../../common/time';
import { archiveTypeOf } from '../../inspection/archive-type';
import { BuildContents, CONTENTS_FORMAT } from '../../inspection/build-contents';
import { MalformedBuildError } from '../../inspection/malformed-build.error';
import { readBuildMetadata } from '../../inspection/read-build-metadata';
import { BuildFiles } from '../build-files';
import { BuildComparison, compareContents, ComparedBuildRef } from './build-comparison';
import { BuildContentsRepository, ComparedBuild, RecentSize } from './build-contents.repository';
import { CompareSettings, parseCompareSettings } from './compare-settings';
import type { Sql } from '../../database/sql';

/** `to` of GET /builds/:id/compare: a build id, or which earlier build of the same app and platform. */
export type CompareTarget = number | 'previous' | 'last_done';

export type FoundContents = { contents: BuildContents; computedAt: Date } | { reason: string };

/** The builds `previous` and `last_done` resolve to for a build: null where a comparison with them would be a 404. */
export interface EarlierBuilds {
  previousId: number | null;
  lastDoneId: number | null;
}

export const CompareMessages = {
  noPrevious: (id: number) => `Build ${id} is the first build of its app on its platform: there is no previous build to compare with`,
  noLastDone: (id: number) => `No build of the same app and platform uploaded before build ${id} is Done`,
  otherApp: 'Both builds must belong to the same app',
  otherPlatform: 'Both builds must be of the same platform',
  noContents: (id: number, reason: string) => `The contents of build ${id} are not available: ${reason}`,
} as const;

const REASONS = {
  inStore: 'the build was uploaded before the relay read contents, and its file is in object storage (contents of older builds are read only from the data folder)',
  missing: 'the build was uploaded before the relay read contents, and its file is no longer there',
  unreadable: (message: string) => `the build's file cannot be read (${message})`,
};

/**
 * A build's contents (read at upload, stored once) and the comparison of two builds of one app
 * under that app's settings (docs/builds.md "Contents and comparison").
 *
 * Builds uploaded before contents were read get them on first request, read from the stored file
 * with the same bounded readers as an upload, when the store is the data folder; otherwise the
 * answer is `contents: null` with the reason (object storage would mean downloading the whole build
 * on a GET).
 */
@Injectable()
export class BuildContentsService {
  private readonly logger = new Logger(BuildContentsService.name);

  constructor(
    private readonly repository: BuildContentsRepository,
    private readonly files: BuildFiles,
    private readonly apps: AppCatalogue,
    private readonly clock: Clock,
  ) {}

  /** With the earlier builds a comparison can start from, so a page asks only for one that exists. */
  async contentsOf(buildId: number): Promise<{ found: FoundContents; earlier: EarlierBuilds }> {
    const build = await this.build(buildId);
    const [found, previous, lastDone] = await Promise.all([this.contentsOfBuild(build), this.earlier(build, 'previous'), this.earlier(build, 'last_done')]);
    return { found, earlier: { previousId: previous?.id ?? null, lastDoneId: lastDone?.id ?? null } };
  }

  async compare(buildId: number, to: CompareTarget): Promise<BuildComparison> {
    const build = await this.build(buildId);
    const other = await this.target(build, to);
    if (other.appId !== build.appId) throw badRequest(CompareMessages.otherApp);
    if (other.platform !== build.platform) throw badRequest(CompareMessages.otherPlatform);
    // Always from `to` to `:id` (a later build named by id gives the changes backwards, as asked).
    const [was, is, settings] = await Promise.all([this.required(other), this.required(build), this.settingsOf(build.appId)]);
    return { build: ref(build), compared_with: ref(other), ...compareContents(was, is, settings) };
  }

  async settingsOf(appId: number): Promise<CompareSettings> {
    return parseCompareSettings(await this.repository.settingsOf(appId));
  }

  /**
   * Stores a new build's contents and, when the build before it (same app and platform) has
   * contents, the flags of their comparison under the app's settings of the moment: in the
   * upload's transaction, so the inbox never shows a build whose flags are still to come. An
   * earlier build without stored contents (uploaded before the relay read them) gives no flags:
   * its file is not read inside an upload.
   */
  async storeAtUpload(build: ComparedBuild, contents: BuildContents, at: Date, tx: Sql): Promise<void> {
    await this.repository.insert(build.id, contents, at, tx);
    const previous = await this.repository.previousContents(build, tx);
    if (!previous || previous.format !== CONTENTS_FORMAT || previous.data === null) return;
    const settings = parseCompareSettings(previous.settings);
    const { flags } = compareContents(JSON.parse(previous.data) as BuildContents, contents, settings);
    if (flags.length) await this.repository.insertFlags(build.id, previous.id, flags, tx);
  }

  /** GET /apps/:id/sizes: the app's last builds (on its platform, or both), oldest first (a chart's order). */
  async sizesOf(appId: number, limit: number): Promise<{ app: AppEntity; builds: RecentSize[] }> {
    const app = await this.apps.findById(appId);
    if (!app) throw notFound(ErrorMessages.appNotFound);
    return { app, builds: (await this.repository.recentSizes(appId, app.platform === 'both' ? null : app.platform, limit)).reverse() };
  }

  async saveSettings(appId: number, settings: CompareSettings): Promise<CompareSettings> {
    if (!(await this.apps.findById(appId))) throw notFound(ErrorMessages.appNotFound);
    const clean: CompareSettings = {
      size_jump_percent: settings.size_jump_percent,
      size_jump_bytes: settings.size_jump_bytes,
      flag_every_new_permission: settings.flag_every_new_permission,
      watched_permissions: [...new Set(settings.watched_permissions)],
    };
    await this.repository.saveSettings(appId, JSON.stringify(clean));
    return clean;
  }

  /** 404 for an app that does not exist; its settings otherwise (the defaults when never set). */
  async settingsOfApp(appId: number): Promise<CompareSettings> {
    if (!(await this.apps.findById(appId))) throw notFound(ErrorMessages.appNotFound);
    return this.settingsOf(appId);
  }

  private async build(id: number): Promise<ComparedBuild> {
    const build = await this.repository.build(id);
    if (!build) throw notFound(ErrorMessages.buildNotFound);
    return build;
  }

  private async target(build: ComparedBuild, to: CompareTarget): Promise<ComparedBuild> {
    if (typeof to === 'number') return this.build(to);
    const found = await this.earlier(build, to);
    if (!found) throw notFound(to === 'last_done' ? CompareMessages.noLastDone(build.id) : CompareMessages.noPrevious(build.id));
    return found;
  }

  /** One seek of the app-and-platform index: what `previous` and `last_done` mean. */
  private earlier(build: ComparedBuild, to: 'previous' | 'last_done'): Promise<ComparedBuild | null> {
    return this.repository.previous(build, to === 'last_done' ? 'Done' : undefined);
  }

  private async required(build: ComparedBuild): Promise<BuildContents> {
    const found = await this.contentsOfBuild(build);
    if ('reason' in found) throw conflict(CompareMessages.noContents(build.id, found.reason));
    return found.contents;
  }

  private async contentsOfBuild(build: ComparedBuild): Promise<FoundContents> {
    const row = await this.repository.find(build.id);
    if (row && row.format === CONTENTS_FORMAT) return { contents: JSON.parse(row.data) as BuildContents, computedAt: row.computedAt };
    return this.readLater(build);
  }

  /** Reads the contents of a build uploaded before they were read (or in an older format), and keeps them. */
  private async readLater(build: ComparedBuild): Promise<FoundContents> {
    const path = this.files.localPath(build.fileName);
    if (!path) return { reason: REASONS.inStore };
    let contents: BuildContents | null | undefined;
    try {
      const head = await readHead(path);
      if (!head) return { reason: REASONS.missing };
      contents = (await readBuildMetadata(path, archiveTypeOf(build.fileName, head), build.fileSize)).contents;
    } catch (err) {
      if (!(err instanceof MalformedBuildError)) throw err;
      this.logger.warn(`Contents of build ${build.id} not read: ${err.message}`);
      return { reason: REASONS.unreadable(err.message) };
    }
    if (!contents) return { reason: REASONS.unreadable('no contents') };
    const at = this.clock.now();
    await this.repository.insert(build.id, contents, at);
    return { contents, computedAt: at };
  }
}

function ref(build: ComparedBuild): ComparedBuildRef {
  return {
    id: build.id,
    version_name: build.versionName,
    build_number: build.buildNumber,
    status_label: build.statusLabel,
    uploaded_at: isoWithMillis(build.uploadedAt),
  };
}

/** The file's first bytes (what archiveTypeOf checks), or null when it is gone. */
async function readHead(path: string): Promise<Buffer | null> {
  const file = await open(path, 'r').catch(() => null);
  if (!file) return null;
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
