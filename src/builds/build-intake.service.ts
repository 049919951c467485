import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT_IN_TRANSACTION, type AuditEvent, AuditEventInTransaction } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, notFound } from '../common/errors/http-error';
import { DISK_RESERVE_BYTES, receiveMultipart, ReceivedFile } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../storage/storage-paths';
import { validateFields } from '../common/validation/form-fields';
import { MAX_ID } from '../common/validation/parse-id.pipe';
import { RelayConfig } from '../config/relay-config';
import { isForeignKeyViolation } from '../database/unique-violation';
import { RelayMetrics } from '../metrics/relay-metrics';
import { BuildEntity } from './build.entity';
import { BuildIconEntity } from './build-icon.entity';
import type { BuildIcon } from '../inspection/build-icon';
import { isFinalStatus } from './build-status';
import { BuildUploadedEvent } from './events/build-uploaded.event';
import { BuildsRepository } from './builds.repository';
import { BuildContentsService } from './contents/build-contents.service';
import { BuildProvenanceRepository } from './provenance/build-provenance.repository';
import { UploadBuildFields } from './dto/upload-build.dto';
import { BuildFiles } from './build-files';
import { archiveTypeOf, ArchiveType } from '../inspection/archive-type';
import type { BuildMetadata } from '../inspection/build-metadata';
import { MalformedBuildError } from '../inspection/malformed-build.error';
import { readBuildMetadata } from '../inspection/read-build-metadata';

const ORIGINAL_NAME_MAX = 255;

/** A build file in a local file on the data disk: what the shared half of the intake needs of it. */
export type ReceivedBuildFile = Pick<ReceivedFile, 'path' | 'originalName' | 'size' | 'head'>;

/** The 413 message of a build over SVC_MAX_BUILD_BYTES, multipart or resumable. */
export function buildTooLargeMessage(maxBytes: number): string {
  return `Build file too large (limit ${maxBytes} bytes)`;
}

/**
 * POST /builds (and, through receiveFile(), finished resumable uploads): stream the file to a local temp file (size and disk limits enforced while bytes
 * arrive), identify it by name and magic bytes, read its metadata there (ranged reads of a zip's
 * central directory, one pass over a tarball; nothing is extracted), then move it into the store
 * (a rename in the data folder, a multipart upload to S3) and file it under its app. The store step
 * comes before the transaction that inserts the row, so a slow S3 upload never holds the database;
 * a failed insert removes the stored file, and a crash in between leaves an unreferenced file that
 * the orphan sweep removes. A refused upload never reaches the store.
 */
@Injectable()
export class BuildIntakeService {
  constructor(
    private readonly config: RelayConfig,
    private readonly paths: StoragePaths,
    private readonly clock: Clock,
    private readonly builds: BuildsRepository,
    private readonly contents: BuildContentsService,
    private readonly provenance: BuildProvenanceRepository,
    private readonly apps: AppCatalogue,
    private readonly files: BuildFiles,
    private readonly metrics: RelayMetrics,
    private readonly events: EventEmitter2,
  ) {}

  /** Receives and files one multipart upload (a refused one counts its declared length in the metrics). */
  receive(req: Request, uploader: Principal): Promise<BuildEntity> {
    return this.timed(Number(req.headers['content-length']) || 0, () => this.intake(req, uploader));
  }

  /**
   * Files a build whose bytes are already in a local file on the data disk (a finished resumable
   * upload): the same checks, store and row as receive(). On success the file has been moved into
   * the store; on failure it may still be where it was, for its owner to remove.
   */
  receiveFile(file: ReceivedBuildFile, fields: Record<string, string>, uploader: Principal): Promise<BuildEntity> {
    return this.timed(file.size, () => this.fileBuild(file, fields, uploader));
  }

  /** Times one upload's filing for the metrics. */
  private async timed(refusedBytes: number, work: () => Promise<BuildEntity>): Promise<BuildEntity> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const build = await work();
      this.metrics.buildUpload('stored', build.fileSize, seconds());
      return build;
    } catch (err) {
      this.metrics.buildUpload('refused', refusedBytes, seconds());
      throw err;
    }
  }

  private async intake(req: Request, uploader: Principal): Promise<BuildEntity> {
    const maxBytes = this.config.maxBuildBytes;
    const upload = await receiveMultipart(req, {
      tmpDir: this.paths.tmp,
      files: { file: { maxBytes, tooLargeMessage: buildTooLargeMessage(maxBytes) } },
      // The spec's four fields and the six of provenance; a changelog of 4000 characters may be 16 KB of UTF-8.
      maxFields: 16,
      maxFieldBytes: 16 * 1024,
      minFreeBytes: DISK_RESERVE_BYTES,
    });
    try {
      const file = upload.file('file');
      if (!file) throw badRequest(ErrorMessages.fileRequired);
      return await this.fileBuild(file, upload.fields, uploader, () => upload.moved(file));
    } finally {
      await upload.cleanup();
    }
  }

  /** The half every upload shares, whatever carried the bytes: fields, identification, inspection, store, row. */
  private async fileBuild(
    file: ReceivedBuildFile,
    rawFields: Record<string, string>,
    uploader: Principal,
    onKept?: () => void,
  ): Promise<BuildEntity> {
    const fields = validateFields(UploadBuildFields, rawFields);
    // A well-formed id past MAX_ID names no app (readId's rule): 404 without asking the database.
    if (fields.app_id !== undefined && fields.app_id > MAX_ID) throw notFound(ErrorMessages.appNotFound);
    const originalName = cleanFileName(file.originalName);
    const type = await asBadRequest(async () => archiveTypeOf(originalName, file.head));
    if (fields.platform && fields.platform !== type.platform) {
      throw badRequest(`platform ${fields.platform} does not match the uploaded file (${describe(type)})`);
    }
    const metadata = await asBadRequest(() => readBuildMetadata(file.path, type, file.size));
    const fileName = this.files.newName(type.extension);
    await this.files.keep(fileName, file.path);
    onKept?.();
    const build = await this.againIfAppDeleted(fields.app_id ?? null, () =>
      this.insert(fileName, file.size, originalName, metadata, fields, uploader, (id, appId) =>
        uploadedEntry(uploader, id, appId, originalName, file.size, metadata, fields),
      ),
    ).catch(async (err: unknown) => {
      await this.files.remove([fileName]);
      throw err;
    });
    this.events.emit(BuildUploadedEvent.eventName, new BuildUploadedEvent(build.id, build.appId, uploader));
    return build;
  }

  /**
   * Inserts the build's row (its app resolved or created, its first status, its icon, its contents
   * and flags, its provenance) and its audit entry in one transaction: a build is never stored
   * without the entry saying who put it there, and the upload pays one commit, not two
   * (docs/decisions.md#issue-42-upload-audit).
   */
  private insert(
    fileName: string,
    fileSize: number,
    originalName: string,
    metadata: BuildMetadata,
    fields: UploadBuildFields,
    uploader: Principal,
    entry: (buildId: number, appId: number) => AuditEvent,
  ): Promise<BuildEntity> {
    return this.builds.inWriteTransaction(async (tx) => {
      const app = await this.apps.resolveForBuild(
        {
          appId: fields.app_id ?? null,
          bundleId: metadata.bundleId,
          platform: metadata.platform,
          name: metadata.name,
        },
        tx,
      );
      const now = this.clock.now();
      const build = await this.builds.insert(
        {
          appId: app.id,
          name: metadata.name,
          versionName: metadata.versionName,
          buildNumber: metadata.buildNumber,
          versionLabel: fields.label ?? null,
          statusLabel: fields.status ?? null,
          platform: metadata.platform,
          bundleId: metadata.bundleId,
          fileName,
          originalName,
          fileSize,
          uploadedAt: now,
          completedAt: isFinalStatus(fields.status) ? now : null,
          deleteAfter: null,
        },
        tx,
      );
      await this.builds.recordStatus({ buildId: build.id, from: null, to: build.statusLabel, by: uploader, at: now }, tx);
      if (metadata.icon) await this.builds.insertIcon(toIconEntity(build.id, metadata.icon), tx);
      if (metadata.contents) await this.contents.storeAtUpload(build, metadata.contents, now, tx);
      const provenance = BuildProvenanceRepository.fromFields(build.id, fields);
      if (provenance) await this.provenance.insert(provenance, tx);
      // Recorded by the audit module's listener in this transaction: no build is kept without its entry.
      await this.events.emitAsync(AUDIT_EVENT_IN_TRANSACTION, new AuditEventInTransaction(entry(build.id, build.appId), tx));
      return build;
    });
  }

  /**
   * The app can be deleted between its resolution and the build's insert (PostgreSQL: the
   * deletion holds the app's row; the insert's foreign key waits, then fails). An upload that named
   * its app gets 404 as if the app had been missing from the start; one resolved by bundle id is
   * filed again (under a new app).
   */
  private async againIfAppDeleted<T>(appId: number | null, store: () => Promise<T>): Promise<T> {
    try {
      return await store();
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      if (appId === null) return store();
      if (await this.apps.findById(appId)) throw err;
      throw notFound(ErrorMessages.appNotFound);
    }
  }
}

/** Who put which file on the relay, and where it says it came from (its provenance as sent). */
function uploadedEntry(
  uploader: Principal,
  buildId: number,
  appId: number,
  file: string,
  bytes: number,
  metadata: BuildMetadata,
  fields: UploadBuildFields,
): AuditEvent {
  return auditEvent(actorOf(uploader), 'build.uploaded', `build:${buildId}`, {
    app_id: appId,
    file,
    bytes,
    version: metadata.versionName,
    build_number: metadata.buildNumber,
    repository: fields.repository ?? null,
    branch: fields.branch ?? null,
    commit: fields.commit ?? null,
    pull_request: fields.pull_request ?? null,
    ci_url: fields.ci_url ?? null,
  });
}

function toIconEntity(buildId: number, icon: BuildIcon): BuildIconEntity {
  return {
    buildId,
    mime: icon.type === 'png' ? 'image/png' : 'image/webp',
    sha256: createHash('sha256').update(icon.data).digest('hex'),
    dataBase64: icon.data.toString('base64'),
  };
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
