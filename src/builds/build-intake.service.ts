import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { rename, rm } from 'node:fs/promises';
import { AppsService } from '../apps/apps.service';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest } from '../common/errors/relay-exception';
import { receiveMultipart, ReceivedFile } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../common/storage/storage-paths';
import { RelayConfig } from '../config/relay-config';
import { BuildEntity } from './build.entity';
import { BuildsRepository } from './builds.repository';
import { parseUploadFields, UploadBuildFields } from './dto/upload-build.fields';
import { BuildFiles } from './storage/build-files';
import { archiveTypeOf, ArchiveType } from './upload/archive-type';
import type { BuildMetadata } from './upload/build-metadata';
import { MalformedBuildError } from './upload/malformed-build.error';
import { readBuildMetadata } from './upload/read-build-metadata';

/** Free space kept on the data disk: an upload that would eat into it is refused with 507. */
const DISK_RESERVE_BYTES = 64 * 1024 * 1024;
const ORIGINAL_NAME_MAX = 255;

/**
 * POST /builds: stream the file to a temp file (size and disk limits enforced while bytes arrive),
 * identify it by name and magic bytes, read its metadata without extracting anything, then file it
 * under its app. The temp file is moved into the builds folder inside the transaction that inserts
 * the row, so every failure leaves neither a file nor a row (nor a newly created app).
 */
@Injectable()
export class BuildIntakeService {
  private readonly files: BuildFiles;

  constructor(
    private readonly config: RelayConfig,
    private readonly paths: StoragePaths,
    private readonly clock: Clock,
    private readonly builds: BuildsRepository,
    private readonly apps: AppsService,
  ) {
    this.files = new BuildFiles(paths);
  }

  async receive(req: Request): Promise<BuildEntity> {
    const maxBytes = this.config.maxBuildBytes;
    const upload = await receiveMultipart(req, {
      tmpDir: this.paths.tmp,
      files: { file: { maxBytes, tooLargeMessage: `Build file too large (limit ${maxBytes} bytes)` } },
      maxFields: 10,
      maxFieldBytes: 4096,
      minFreeBytes: DISK_RESERVE_BYTES,
    });
    try {
      const file = upload.file('file');
      if (!file) throw badRequest(ErrorMessages.fileRequired);
      const fields = parseUploadFields(upload.fields);
      const originalName = cleanFileName(file.originalName);
      const type = await asBadRequest(async () => archiveTypeOf(originalName, file.head));
      if (fields.platform && fields.platform !== type.platform) {
        throw badRequest(`platform ${fields.platform} does not match the uploaded file (${describe(type)})`);
      }
      const metadata = await asBadRequest(() => readBuildMetadata(file.path, type, file.size));
      return await this.store(file, originalName, type, metadata, fields);
    } finally {
      await upload.cleanup();
    }
  }

  private async store(
    file: ReceivedFile,
    originalName: string,
    type: ArchiveType,
    metadata: BuildMetadata,
    fields: UploadBuildFields,
  ): Promise<BuildEntity> {
    const fileName = this.files.newName(type.extension);
    const finalPath = this.files.pathOf(fileName);
    let moved = false;
    try {
      return await this.builds.inWriteTransaction(async (manager) => {
        const app = await this.apps.resolveForBuild(
          { appId: fields.appId, bundleId: metadata.bundleId, platform: metadata.platform, name: metadata.name },
          manager,
        );
        const now = this.clock.now();
        const build = await this.builds.insert(
          {
            appId: app.id,
            name: metadata.name,
            versionName: metadata.versionName,
            buildNumber: metadata.buildNumber,
            versionLabel: fields.label,
            statusLabel: fields.status,
            platform: metadata.platform,
            bundleId: metadata.bundleId,
            fileName,
            originalName,
            fileSize: file.size,
            uploadedAt: now,
            completedAt: fields.status === 'Done' || fields.status === 'Rejected' ? now : null,
            deleteAfter: null,
          },
          manager,
        );
        // Last step before the commit: a failed move rolls the row (and a new app) back.
        await rename(file.path, finalPath);
        moved = true;
        return build;
      });
    } catch (err) {
      if (moved) await rm(finalPath, { force: true });
      throw err;
    }
  }
}

/** The client's file name, base name only, without control characters, at most 255 characters. */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(-ORIGINAL_NAME_MAX);
}

function describe(type: ArchiveType): string {
  return type.platform === 'android' ? 'an Android APK' : 'an iOS simulator build';
}

/** A build the readers cannot understand is the client's problem: 400 with the reader's message. */
async function asBadRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MalformedBuildError) throw badRequest(err.message);
    throw err;
  }
}
