import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { changedRows, insertReturningId, updateById } from '../database/query-builder/rows';
import { ShareLinkEntity } from './share-link.entity';
import { SqlExecutor } from '../database/sql-executor';

interface ShareLinkRow {
  id: number | string;
  build_id: number | string | null;
  token_hash: string;
  token_sealed: string | null;
  password_hash: string | null;
  download_limit: number | string | null;
  created_by_id: number | string | null;
  created_by_name: string;
  created_at: number | string;
  expires_at: number | string;
  revoked_at: number | string | null;
  downloads: number | string;
}

const COLUMNS = [
  'id',
  'build_id',
  'token_hash',
  'token_sealed',
  'password_hash',
  'download_limit',
  'created_by_id',
  'created_by_name',
  'created_at',
  'expires_at',
  'revoked_at',
  'downloads',
] as const;

/** The build_share_links table. */
@Injectable()
export class ShareLinksRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async create(link: Omit<ShareLinkEntity, 'id'>): Promise<ShareLinkEntity> {
    const id = await insertReturningId(this.db, 'build_share_links', {
      build_id: link.buildId,
      token_hash: link.tokenHash,
      token_sealed: link.tokenSealed,
      password_hash: link.passwordHash,
      download_limit: link.downloadLimit,
      created_by_id: link.createdById,
      created_by_name: link.createdByName,
      created_at: link.createdAt.getTime(),
      expires_at: link.expiresAt.getTime(),
      revoked_at: link.revokedAt?.getTime() ?? null,
      downloads: link.downloads,
    });
    return Object.assign(new ShareLinkEntity(), { id, ...link });
  }

  /** The build's links, newest first. */
  async ofBuild(buildId: number): Promise<ShareLinkEntity[]> {
    const statement = this.sql.prepare('shareLinks.ofBuild', (v: { buildId: number }) =>
      this.sql.db.selectFrom('build_share_links').select(COLUMNS).where('build_id', '=', v.buildId).orderBy('created_at', 'desc').orderBy('id', 'desc'),
    );
    return (await statement.run<ShareLinkRow>(this.db, { buildId })).map(toShareLink);
  }

  async findOfBuild(id: number, buildId: number): Promise<ShareLinkEntity | null> {
    const statement = this.sql.prepare('shareLinks.ofBuildById', (v: { id: number; buildId: number }) =>
      this.sql.db.selectFrom('build_share_links').select(COLUMNS).where('id', '=', v.id).where('build_id', '=', v.buildId),
    );
    const [row] = await statement.run<ShareLinkRow>(this.db, { id, buildId });
    return row ? toShareLink(row) : null;
  }

  async findByTokenHash(tokenHash: string): Promise<ShareLinkEntity | null> {
    const statement = this.sql.prepare('shareLinks.byTokenHash', (v: { tokenHash: string }) =>
      this.sql.db.selectFrom('build_share_links').select(COLUMNS).where('token_hash', '=', v.tokenHash),
    );
    const [row] = await statement.run<ShareLinkRow>(this.db, { tokenHash });
    return row ? toShareLink(row) : null;
  }

  async revoke(id: number, at: Date): Promise<void> {
    await updateById(this.db, 'build_share_links', id, { revoked_at: at.getTime() });
  }

  /** Revokes the link unless it already is: the link as this call revoked it, null when it was revoked before. */
  async revokeIfLive(id: number, at: Date): Promise<ShareLinkEntity | null> {
    const statement = this.sql.prepare('shareLinks.revokeIfLive', (v: { id: number; at: number }) =>
      this.sql.db.updateTable('build_share_links').set({ revoked_at: v.at }).where('id', '=', v.id).where('revoked_at', 'is', null).returning(COLUMNS),
    );
    const [row] = await changedRows<ShareLinkRow>(statement, this.db, { id, at: at.getTime() });
    return row ? toShareLink(row) : null;
  }

  /** One more download unless that passes the link's limit: one conditional UPDATE, so parallel downloads cannot overshoot. False at the limit. */
  async countDownload(id: number): Promise<boolean> {
    const statement = this.sql.prepare('shareLinks.countDownload', (v: { id: number; one: number }) =>
      this.sql.db
        .updateTable('build_share_links')
        .set((eb) => ({ downloads: eb('downloads', '+', v.one) }))
        .where('id', '=', v.id)
        .where((eb) => eb.or([eb('download_limit', 'is', null), eb('downloads', '<', eb.ref('download_limit'))]))
        .returning('id'),
    );
    return (await changedRows(statement, this.db, { id, one: 1 })).length > 0;
  }
}

function toShareLink(row: ShareLinkRow): ShareLinkEntity {
  return Object.assign(new ShareLinkEntity(), {
    id: Number(row.id),
    buildId: row.build_id === null ? null : Number(row.build_id),
    tokenHash: row.token_hash,
    tokenSealed: row.token_sealed,
    passwordHash: row.password_hash,
    downloadLimit: row.download_limit === null ? null : Number(row.download_limit),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdByName: row.created_by_name,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
    revokedAt: row.revoked_at === null ? null : new Date(Number(row.revoked_at)),
    downloads: Number(row.downloads),
  });
}
