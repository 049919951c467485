import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Clock } from '../common/clock';
import { randomHex } from '../common/crypto/secret-token';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, notFound } from '../common/errors/http-error';
import { DISK_RESERVE_BYTES, receiveMultipart, tempUploadPath } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../storage/storage-paths';
import { HOUR_MS } from '../common/time';
import { MAX_ID, readId } from '../common/validation/parse-id.pipe';
import { RelayConfig } from '../config/relay-config';
import { inLists } from '../database/in-lists';
import { FileStore } from '../storage/file-store';
import { sendFromStore } from '../storage/file-responses';
import { folderOwner, ORPHAN_FILE_GRACE_MS, StoredFileOwners } from '../storage/stored-file-owners';
import type { UploadRecordingQuery } from './dto/upload-recording.query';
import { RecordingEntity } from './recording.entity';
import { RecordingsRepository } from './recordings.repository';
import { Recording, recordingUrl, toRecording } from './recordings.mapper';
import { detectVideo } from './video-signature';
import type { RecordingTimeline } from './recording-timeline.mapper';
import { rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_FILE_MODE } from '../storage/private-modes';

export const RECORDING_TTL_MS = 72 * HOUR_MS;
/** The only names a recording file ever has; anything else in a URL is 404 without touching the disk. */
const FILENAME_PATTERN = /^rec-[0-9a-f]{32}\.(webm|mkv|mp4|mov)$/;
const RECORDING_NOT_FOUND = 'Recording not found';
const TIMELINE_NOT_FOUND = 'This recording has no timeline (it was uploaded, not recorded from a live session)';
/** A live session recording's timeline is stored beside its video under this name (never a FILENAME_PATTERN name). */
const timelineName = (filename: string) => `${filename}.timeline.json`;

/** A live session recording just finished (SessionRecordingsService), its video in a temp file of ours. */
export interface FinishedSessionRecording {
  videoPath: string;
  videoBytes: number;
  timeline: RecordingTimeline;
  sessionId: string;
  buildId: number | null;
  startedBy: number;
}
/** A recording as the evidence of a reported issue reads it (trackers module). */
export interface RecordingEvidenceSource {
  id: number;
  filename: string;
  mime: string;
  sessionId: string | null;
  buildId: number | null;
  /** Streams the video into `path` (a temp file of the caller's). */
  copyTo(path: string): Promise<void>;
  /** The timeline of a live session recording; null for an upload. */
  timeline(): Promise<RecordingTimeline | null>;
}

/** Recordings' folder in the store: `recordings/<filename>`. */
const PREFIX = 'recordings/';

/** Screen recordings: streamed upload checked by its bytes, listing, serving until 72 hours, purge. */
@Injectable()
export class RecordingsService implements OnModuleInit {
  private readonly logger = new Logger('Recordings');

  constructor(
    private readonly recordings: RecordingsRepository,
    private readonly storage: StoragePaths,
    private readonly store: FileStore,
    private readonly clock: Clock,
    private readonly config: RelayConfig,
    private readonly owners: StoredFileOwners,
  ) {}

  /** Files in the recordings folder that no row references are swept every hour (removeUnreferencedFiles). */
  onModuleInit(): void {
    this.owners.register(
      folderOwner(this.store, {
        orphans: 'orphan recordings',
        every: 'hour',
        graceMs: ORPHAN_FILE_GRACE_MS,
        prefix: PREFIX,
        referenced: async () =>
          new Set((await this.recordings.filenames()).flatMap((filename) => [filename, timelineName(filename)])),
      }),
    );
  }

  async upload(req: Request, query: UploadRecordingQuery, uploadedBy: number): Promise<{ url: string }> {
    const sessionId = query.sessionId ?? null;
    const buildId = parseBuildId(query.buildId);
    const body = await receiveMultipart(req, {
      tmpDir: this.storage.tmp,
      files: {
        '*': {
          maxBytes: this.config.maxRecordingBytes,
          tooLargeMessage: `Recording too large (limit ${this.config.maxRecordingBytes} bytes)`,
        },
      },
      minFreeBytes: DISK_RESERVE_BYTES,
    });
    try {
      const file = body.files[0];
      if (!file || file.size === 0) throw badRequest(ErrorMessages.fileRequired);
      const kind = detectVideo(file.head);
      if (!kind) throw badRequest('The file is not a WebM, Matroska, MP4 or QuickTime video');
      const filename = `rec-${randomHex(16)}.${kind.extension}`;
      const now = this.clock.now();
      await this.store.put(PREFIX + filename, file.path, kind.mime);
      body.moved(file);
      try {
        await this.recordings.insert({
          filename,
          sessionId,
          buildId,
          fileSize: file.size,
          mime: kind.mime,
          uploadedBy,
          createdAt: now,
          expiresAt: new Date(now.getTime() + RECORDING_TTL_MS),
        });
      } catch (err) {
        await this.store.remove([PREFIX + filename]).catch(() => undefined);
        throw err;
      }
      return { url: recordingUrl(filename) };
    } finally {
      await body.cleanup();
    }
  }

  /** Where a live session recording writes its video while it runs (swept like a partial upload after a crash). */
  newTempVideoPath(): string {
    return tempUploadPath(this.storage.tmp);
  }

  /**
   * Stores a finished live session recording: the MP4 and its timeline move into the store, then the
   * row is written (72 hours, like an upload). On any failure nothing is left: neither temp file,
   * nor stored file, nor row.
   */
  async saveSessionRecording(finished: FinishedSessionRecording): Promise<Recording> {
    const filename = `rec-${randomHex(16)}.mp4`;
    const timelinePath = tempUploadPath(this.storage.tmp);
    const keys = [PREFIX + filename, PREFIX + timelineName(filename)];
    try {
      await writeFile(timelinePath, JSON.stringify(finished.timeline), { mode: PRIVATE_FILE_MODE });
      await this.store.put(keys[0], finished.videoPath, 'video/mp4');
      await this.store.put(keys[1], timelinePath, 'application/json');
      const now = this.clock.now();
      const row = await this.recordings.insert({
        filename,
        sessionId: finished.sessionId,
        buildId: finished.buildId,
        fileSize: finished.videoBytes,
        mime: 'video/mp4',
        uploadedBy: finished.startedBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + RECORDING_TTL_MS),
      });
      return toRecording(row);
    } catch (err) {
      await this.store.remove(keys).catch(() => undefined);
      throw err;
    } finally {
      await rm(finished.videoPath, { force: true });
      await rm(timelinePath, { force: true });
    }
  }

  /** The timeline of a live session recording (docs/recordings.md), as stored; 404 like the video, or when it has none. */
  async sendTimeline(filename: string, res: Response): Promise<void> {
    const recording = await this.live(filename);
    const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-cache', 'X-Content-Type-Options': 'nosniff' };
    await sendFromStore(res, this.store, PREFIX + timelineName(recording.filename), { dotfiles: 'deny', headers }, TIMELINE_NOT_FOUND);
  }

  async list(buildIdValue: unknown): Promise<Recording[]> {
    const filtered = buildIdValue !== undefined && buildIdValue !== '';
    const buildId = filtered ? readId(buildIdValue, 'buildId') : null;
    if (filtered && buildId === null) return []; // an id no recording can carry (past MAX_ID)
    return (await this.recordings.liveAt(this.clock.now(), buildId)).map(toRecording);
  }

  /** Streams a live recording with Range support (206 / 416); 404 for an unknown or malformed name, or past 72 hours. */
  async send(filename: string, res: Response): Promise<void> {
    const recording = await this.live(filename);
    const headers = {
      'Content-Type': recording.mime,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-cache',
    };
    await sendFromStore(res, this.store, PREFIX + recording.filename, { dotfiles: 'deny', headers }, RECORDING_NOT_FOUND);
  }

  /** A recording still within its 72 hours, by id, or the newest of a session; null when there is none. */
  async evidenceSource(by: { id: number } | { sessionId: string }): Promise<RecordingEvidenceSource | null> {
    const row = await this.recordings.newestLive(by, this.clock.now());
    if (!row) return null;
    const store = this.store;
    return {
      id: row.id,
      filename: row.filename,
      mime: row.mime,
      sessionId: row.sessionId,
      buildId: row.buildId,
      async copyTo(path: string): Promise<void> {
        await pipeline(await store.read(PREFIX + row.filename), createWriteStream(path, { mode: PRIVATE_FILE_MODE }));
      },
      async timeline(): Promise<RecordingTimeline | null> {
        if (!(await store.stat(PREFIX + timelineName(row.filename)))) return null;
        const chunks: Buffer[] = [];
        for await (const chunk of await store.read(PREFIX + timelineName(row.filename))) chunks.push(chunk as Buffer);
        return JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordingTimeline;
      },
    };
  }

  /** The row of a recording still within its 72 hours; 404 for an unknown or malformed name. */
  private async live(filename: string): Promise<RecordingEntity> {
    if (!FILENAME_PATTERN.test(filename)) throw notFound(RECORDING_NOT_FOUND);
    const recording = await this.recordings.findByFilename(filename);
    if (!recording || recording.expiresAt.getTime() <= this.clock.nowMs()) throw notFound(RECORDING_NOT_FOUND);
    return recording;
  }

  /** Deletes recordings past their 72 hours: the row first (so it is never served), then the file. */
  async purgeExpired(): Promise<number> {
    const expired = await this.recordings.expiredAt(this.clock.now());
    for (const batch of inLists(expired)) {
      await this.recordings.deleteIds(batch.map((r) => r.id));
      await this.store.remove(batch.flatMap((r) => [PREFIX + r.filename, PREFIX + timelineName(r.filename)])).catch((err: Error) => {
        this.logger.warn(`Could not remove ${batch.length} recording file(s): ${err.message}`);
      });
    }
    return expired.length;
  }
}

/** The optional `buildId` an upload is tagged with (no such build needs to exist): readId's rule; past MAX_ID it cannot be stored, 400. */
function parseBuildId(value: unknown): number | null {
  if (value === undefined || value === '') return null;
  const id = readId(value, 'buildId');
  if (id === null) throw badRequest(`buildId must be at most ${MAX_ID}`);
  return id;
}
