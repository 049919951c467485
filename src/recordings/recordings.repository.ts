import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { insertReturningId } from '../database/query-builder/rows';
import { RecordingEntity } from './recording.entity';
import { SqlExecutor } from '../database/sql-executor';

interface RecordingRow {
  id: number | string;
  filename: string;
  session_id: string | null;
  build_id: number | string | null;
  file_size: number | string;
  mime: string;
  uploaded_by: number | string | null;
  created_at: number | string;
  expires_at: number | string;
}

const COLUMNS = ['id', 'filename', 'session_id', 'build_id', 'file_size', 'mime', 'uploaded_by', 'created_at', 'expires_at'] as const;

/** The recordings table. */
@Injectable()
export class RecordingsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(recording: Omit<RecordingEntity, 'id'>): Promise<RecordingEntity> {
    const id = await insertReturningId(this.db, 'recordings', {
      filename: recording.filename,
      session_id: recording.sessionId,
      build_id: recording.buildId,
      file_size: recording.fileSize,
      mime: recording.mime,
      uploaded_by: recording.uploadedBy,
      created_at: recording.createdAt.getTime(),
      expires_at: recording.expiresAt.getTime(),
    });
    return Object.assign(new RecordingEntity(), { id, ...recording });
  }

  /** Every recording's file name. */
  async filenames(): Promise<string[]> {
    const statement = this.sql.prepare('recordings.filenames', () => this.sql.db.selectFrom('recordings').select('filename'));
    return (await statement.run<{ filename: string }>(this.db, {})).map((row) => row.filename);
  }

  /** Recordings expiring after `now` (of one build when given), newest first. */
  async liveAt(now: Date, buildId: number | null): Promise<RecordingEntity[]> {
    const statement = this.sql.prepare(`recordings.live${buildId === null ? '' : ' ofBuild'}`, (v: { now: number; buildId: number }) => {
      const live = this.sql.db.selectFrom('recordings').select(COLUMNS).where('expires_at', '>', v.now);
      return (buildId === null ? live : live.where('build_id', '=', v.buildId)).orderBy('id', 'desc');
    });
    return (await statement.run<RecordingRow>(this.db, { now: now.getTime(), buildId: buildId ?? 0 })).map(toRecording);
  }

  /** The recording with this id, or else the newest of this session, if it expires after `now`. */
  async newestLive(by: { id: number } | { sessionId: string }, now: Date): Promise<RecordingEntity | null> {
    const byId = 'id' in by;
    const statement = this.sql.prepare(`recordings.newestLive ${byId ? 'id' : 'session'}`, (v: { now: number; id: number; sessionId: string; one: number }) => {
      const live = this.sql.db.selectFrom('recordings').select(COLUMNS).where('expires_at', '>', v.now);
      return (byId ? live.where('id', '=', v.id) : live.where('session_id', '=', v.sessionId)).orderBy('id', 'desc').limit(v.one);
    });
    const values = { now: now.getTime(), id: byId ? by.id : 0, sessionId: byId ? '' : by.sessionId, one: 1 };
    const [row] = await statement.run<RecordingRow>(this.db, values);
    return row ? toRecording(row) : null;
  }

  async findByFilename(filename: string): Promise<RecordingEntity | null> {
    const statement = this.sql.prepare('recordings.byFilename', (v: { filename: string }) =>
      this.sql.db.selectFrom('recordings').select(COLUMNS).where('filename', '=', v.filename),
    );
    const [row] = await statement.run<RecordingRow>(this.db, { filename });
    return row ? toRecording(row) : null;
  }

  /** Recordings whose 72 hours ended at or before `now`: their ids and file names. */
  async expiredAt(now: Date): Promise<Pick<RecordingEntity, 'id' | 'filename'>[]> {
    const statement = this.sql.prepare('recordings.expired', (v: { now: number }) =>
      this.sql.db.selectFrom('recordings').select(['id', 'filename']).where('expires_at', '<=', v.now),
    );
    const rows = await statement.run<{ id: number | string; filename: string }>(this.db, { now: now.getTime() });
    return rows.map((row) => ({ id: Number(row.id), filename: row.filename }));
  }

  /** Deletes these rows (at most IN_LIST_MAX ids per call; one statement per count of ids). */
  async deleteIds(ids: number[]): Promise<void> {
    if (!ids.length) return;
    const statement = this.sql.prepare(`recordings.delete ${ids.length}`, (v: number[]) =>
      this.sql.db.deleteFrom('recordings').where(
        'id',
        'in',
        ids.map((_, i) => v[i]),
      ),
    );
    await statement.run(this.db, ids);
  }
}

function toRecording(row: RecordingRow): RecordingEntity {
  return Object.assign(new RecordingEntity(), {
    id: Number(row.id),
    filename: row.filename,
    sessionId: row.session_id,
    buildId: row.build_id === null ? null : Number(row.build_id),
    fileSize: Number(row.file_size),
    mime: row.mime,
    uploadedBy: row.uploaded_by === null ? null : Number(row.uploaded_by),
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  });
}
