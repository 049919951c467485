import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { Repository } from 'typeorm';
import { actorOf, auditEvent, RELAY_ACTOR } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { BuildDownloadService } from '../builds/build-download.service';
import { BuildIconsService } from '../builds/build-icons.service';
import { BuildQueryService } from '../builds/build-query.service';
import type { BuildEntity } from '../builds/build.entity';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { linkTokenHash, newLinkToken } from '../common/crypto/link-token';
import { gone, HttpError, notFound } from '../common/errors/http-error';
import { DAY_MS } from '../common/time';
import { PublicUrlService } from '../relay/public-url.service';
import { shownName } from '../users/users.mapper';
import { DEFAULT_SHARE_DAYS } from './dto/create-share-link.dto';
import { ShareLinkEntity } from './share-link.entity';
import { ShareLinkMessages } from './share-link-messages';
import { toShareLink, type ShareLink } from './share-links.mapper';

export const INSTALL_PAGE_PATH = '/install';

/** Who a link is made by: a member, or the uploader a forge comment speaks for (null id once their account is deleted). */
export type ShareLinkCreator = Pick<Principal, 'email' | 'displayName'> & { userId: number | null };

/** What the install page shows for a usable link. */
export interface SharedBuild {
  build: BuildEntity;
  iconDataUrl: string | null;
  expiresAt: Date;
  downloadPath: string;
}

/**
 * Share links (docs/builds.md "Share links"): a random 64-hex token (32 bytes), stored only as its
 * SHA-256 like invitations, that opens one build's install page and download without an account,
 * until it expires, is revoked, or the build is deleted (410). It is looked up only by these
 * public routes, never by the authenticator, so it is no credential anywhere else.
 */
@Injectable()
export class ShareLinksService {
  constructor(
    @InjectRepository(ShareLinkEntity) private readonly links: Repository<ShareLinkEntity>,
    private readonly builds: BuildQueryService,
    private readonly downloads: BuildDownloadService,
    private readonly icons: BuildIconsService,
    private readonly publicUrl: PublicUrlService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  /** `actor` is the member asking, or (for a pull-request comment, docs/integrations.md) the build's uploader, whose account may be gone. */
  async create(buildId: number, actor: ShareLinkCreator | Principal, days = DEFAULT_SHARE_DAYS): Promise<ShareLink> {
    await this.builds.get(buildId);
    const { token, hash } = newLinkToken();
    const now = this.clock.now();
    const link = await this.links.save(
      this.links.create({
        buildId,
        tokenHash: hash,
        createdById: actor.userId,
        createdByName: shownName(actor),
        createdAt: now,
        expiresAt: new Date(now.getTime() + days * DAY_MS),
        revokedAt: null,
        downloads: 0,
      }),
    );
    // A member's request, or the relay making one for a pull-request comment on the uploader's behalf.
    const by = 'via' in actor ? actorOf(actor) : RELAY_ACTOR;
    this.events.emit(AUDIT_EVENT, auditEvent(by, 'share_link.created', `share_link:${link.id}`, { build_id: buildId, expires_at: link.expiresAt.toISOString(), for: actor.email }));
    const path = `${INSTALL_PAGE_PATH}/${token}`;
    const base = this.publicUrl.publicBaseUrl();
    return toShareLink(link, { url: base ? `${base.replace(/\/$/, '')}${path}` : null, path });
  }

  /** The build's links, newest first, revoked and expired ones included (their counts stay readable). */
  async list(buildId: number): Promise<ShareLink[]> {
    await this.builds.get(buildId);
    const links = await this.links.find({ where: { buildId }, order: { createdAt: 'DESC', id: 'DESC' } });
    return links.map((link) => toShareLink(link));
  }

  /** Revoking twice is harmless (the first time is kept); a link of another build is 404. */
  async revoke(actor: Principal, buildId: number, linkId: number): Promise<void> {
    await this.builds.get(buildId);
    const link = await this.links.findOneBy({ id: linkId, buildId });
    if (!link) throw notFound(ShareLinkMessages.notFound);
    if (link.revokedAt) return;
    await this.links.update({ id: link.id }, { revokedAt: this.clock.now() });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'share_link.revoked', `share_link:${link.id}`, { build_id: buildId, downloads: link.downloads }));
  }

  /** The install page's content; 404 for a token no link has, 410 for an ended link. */
  async shared(token: string): Promise<SharedBuild> {
    const { link, build } = await this.usable(token);
    return {
      build,
      iconDataUrl: await this.icons.dataUrlOf(build.id),
      expiresAt: link.expiresAt,
      downloadPath: `/api/v1/share/${token}/download`,
    };
  }

  /**
   * Streams the build file as the members' download does (Range, Content-Disposition). A GET
   * served from the first byte counts one download; resumed ranges and HEAD do not.
   */
  async download(token: string, req: Request, res: Response): Promise<void> {
    const { link, build } = await this.usable(token);
    const counted = req.method === 'GET' && startsAtFirstByte(req.headers.range);
    await this.downloads.send(build.id, res, () =>
      counted ? this.links.increment({ id: link.id }, 'downloads', 1) : Promise.resolve(),
    );
  }

  private async usable(token: string): Promise<{ link: ShareLinkEntity; build: BuildEntity }> {
    const hash = linkTokenHash(token);
    const link = hash ? await this.links.findOneBy({ tokenHash: hash }) : null;
    if (!link) throw notFound(ShareLinkMessages.notFound);
    if (link.buildId === null) throw gone(ShareLinkMessages.buildDeleted);
    if (link.revokedAt) throw gone(ShareLinkMessages.revoked);
    if (link.expiresAt.getTime() <= this.clock.nowMs()) throw gone(ShareLinkMessages.expired);
    try {
      return { link, build: await this.builds.get(link.buildId) };
    } catch (err) {
      // Deleted between the two reads (the foreign key set build_id to NULL meanwhile).
      if (err instanceof HttpError && err.getStatus() === 404) throw gone(ShareLinkMessages.buildDeleted);
      throw err;
    }
  }
}

/** No Range, or one that starts at byte 0 (`bytes=0-`): the start of a download, not its resumption. */
function startsAtFirstByte(range: string | undefined): boolean {
  return range === undefined || /^\s*bytes\s*=\s*0-/i.test(range);
}
