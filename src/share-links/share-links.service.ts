import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Request, Response } from 'express';
import { actorOf, auditEvent, RELAY_ACTOR } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { LoginThrottleService } from '../auth/login-throttle.service';
import { BuildDownloadService } from '../builds/build-download.service';
import { BuildIconsService } from '../builds/build-icons.service';
import { BuildQueryService } from '../builds/build-query.service';
import type { BuildEntity } from '../builds/build.entity';
import type { Principal } from '../common/auth/principal';
import { WRITER_ROLES } from '../common/auth/role';
import { Clock } from '../common/clock';
import { linkTokenHash, newLinkToken } from '../common/crypto/link-token';
import { SecretBox, SecretUnreadable } from '../common/crypto/secret-box';
import { gone, HttpError, notFound } from '../common/errors/http-error';
import { DAY_MS } from '../common/time';
import { PublicUrlService } from '../relay/public-url.service';
import { SettingsService } from '../settings/settings.service';
import { PasswordHasher } from '../users/password-hasher';
import { shownName } from '../users/users.mapper';
import { DEFAULT_SHARE_DAYS } from './dto/create-share-link.dto';
import { downloadGrant, isValidGrant } from './share-link-grant';
import { ShareLinkEntity } from './share-link.entity';
import { ShareLinkMessages } from './share-link-messages';
import { ShareLinksRepository } from './share-links.repository';
import { toShareLink, type ShareLink } from './share-links.mapper';

export const INSTALL_PAGE_PATH = '/install';
/** SecretBox purpose (authenticated data): a sealed share token cannot pass for a forge's token. */
const SEALED_TOKEN_PURPOSE = 'build_share_links.token';

/** Who a link is made by: a member, or the uploader a forge comment speaks for (null id once their account is deleted). */
export type ShareLinkCreator = Pick<Principal, 'email' | 'displayName'> & { userId: number | null };

export interface ShareLinkOptions {
  days?: number;
  password?: string;
  downloadLimit?: number;
}

/** What the install page shows for a link: the team always; the build only once it is unlocked. */
export interface SharedBuild {
  team: { name: string; logoDataUrl: string | null };
  /** True while the link's password was not given: the page shows only the password form. */
  locked: boolean;
  build: BuildEntity;
  changelog: string | null;
  iconDataUrl: string | null;
  /** null for a "latest build" link, which does not expire. */
  expiresAt: Date | null;
  downloadPath: string;
}

/**
 * Share links (docs/builds.md "Share links"): a random 64-hex token (32 bytes), looked up by its
 * SHA-256 like invitations and kept otherwise only sealed with SVC_SECRETS_KEY (so writers can copy
 * it again), that opens one build's install page and download without an account, until it
 * expires, is revoked, reaches its download limit, or the build is deleted (410). It is looked up
 * only by these public routes, never by the authenticator, so it is no credential anywhere else.
 */
@Injectable()
export class ShareLinksService {
  constructor(
    private readonly links: ShareLinksRepository,
    private readonly builds: BuildQueryService,
    private readonly downloads: BuildDownloadService,
    private readonly icons: BuildIconsService,
    private readonly publicUrl: PublicUrlService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly secrets: SecretBox,
    private readonly passwords: PasswordHasher,
    private readonly throttle: LoginThrottleService,
    private readonly settings: SettingsService,
  ) {}

  /** `actor` is the member asking, or (for a pull-request comment, docs/integrations.md) the build's uploader, whose account may be gone. */
  async create(buildId: number, actor: ShareLinkCreator | Principal, options: ShareLinkOptions = {}): Promise<ShareLink> {
    await this.builds.get(buildId);
    const { token, hash } = newLinkToken();
    const now = this.clock.now();
    const link = await this.links.create({
      buildId,
      tokenHash: hash,
      // Without SVC_SECRETS_KEY the token is kept nowhere: the link is shown once, as before.
      tokenSealed: this.secrets.configured ? this.secrets.seal(token, SEALED_TOKEN_PURPOSE) : null,
      passwordHash: options.password !== undefined ? await this.passwords.hash(options.password) : null,
      downloadLimit: options.downloadLimit ?? null,
      createdById: actor.userId,
      createdByName: shownName(actor),
      createdAt: now,
      expiresAt: new Date(now.getTime() + (options.days ?? DEFAULT_SHARE_DAYS) * DAY_MS),
      revokedAt: null,
      downloads: 0,
    });
    // A member's request, or the relay making one for a pull-request comment on the uploader's behalf.
    const by = 'via' in actor ? actorOf(actor) : RELAY_ACTOR;
    this.events.emit(AUDIT_EVENT, auditEvent(by, 'share_link.created', `share_link:${link.id}`, { build_id: buildId, expires_at: link.expiresAt.toISOString(), for: actor.email }));
    return toShareLink(link, this.addressOf(token));
  }

  /**
   * The build's links, newest first, revoked and expired ones included (their counts stay readable);
   * writers get the address of each live link the relay keeps sealed, to send it again.
   */
  async list(buildId: number, reader: Pick<Principal, 'role'>): Promise<ShareLink[]> {
    await this.builds.get(buildId);
    const links = await this.links.ofBuild(buildId);
    const writer = WRITER_ROLES.includes(reader.role);
    return links.map((link) => toShareLink(link, writer && this.endOf(link) === null ? this.resent(link) : undefined));
  }

  /** Revoking twice is harmless (the first time is kept); a link of another build is 404. */
  async revoke(actor: Principal, buildId: number, linkId: number): Promise<void> {
    await this.builds.get(buildId);
    const link = await this.links.findOfBuild(linkId, buildId);
    if (!link) throw notFound(ShareLinkMessages.notFound);
    if (link.revokedAt) return;
    await this.links.revoke(link.id, this.clock.now());
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'share_link.revoked', `share_link:${link.id}`, { build_id: buildId, downloads: link.downloads }));
  }

  /** Revokes these links (a removed tester's, docs/integrations.md "Testers"); those already revoked stay as they were. */
  async revokeLinks(actor: Principal, linkIds: number[]): Promise<void> {
    if (!linkIds.length) return;
    const now = this.clock.now();
    for (const id of linkIds) {
      const link = await this.links.revokeIfLive(id, now);
      if (!link) continue;
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'share_link.revoked', `share_link:${link.id}`, { build_id: link.buildId, downloads: link.downloads }));
    }
  }

  /** The install page's content; 404 for a token no link has, 410 for an ended link. */
  async shared(token: string): Promise<SharedBuild> {
    const { link, build } = await this.usable(token);
    return this.page(token, link, build, link.passwordHash === null ? '' : null);
  }

  /**
   * The install page after its password form: unlocked with a download grant, or 401 "Wrong
   * password". Attempts are braked per (client address, link) like sign-ins (429 with Retry-After).
   */
  async unlock(token: string, password: unknown, address: string): Promise<SharedBuild> {
    const { link, build } = await this.usable(token);
    if (link.passwordHash === null) return this.page(token, link, build, '');
    const who = `share-link:${link.id}`;
    await this.throttle.beginAttempt(address, who);
    const right = typeof password === 'string' && password.length > 0 && (await this.passwords.verify(password, link.passwordHash));
    if (!right) throw new HttpError(401, ShareLinkMessages.wrongPassword);
    await this.throttle.recordSuccess(address, who);
    return this.page(token, link, build, `?grant=${downloadGrant(link.id, link.passwordHash, this.clock.nowMs())}`);
  }

  /**
   * Streams the build file as the members' download does (Range, Content-Disposition). A GET
   * served from the first byte counts one download, within the link's limit; resumed ranges and
   * HEAD do not. A link with a password needs the grant its unlocked install page gave (401).
   */
  async download(token: string, grant: unknown, req: Request, res: Response): Promise<void> {
    const { link, build } = await this.usable(token);
    if (link.passwordHash !== null && !isValidGrant(grant, link.id, link.passwordHash, this.clock.nowMs())) {
      throw new HttpError(401, ShareLinkMessages.passwordNeeded);
    }
    const counted = req.method === 'GET' && startsAtFirstByte(req.headers.range);
    await this.downloads.send(build.id, res, () => (counted ? this.countDownload(link) : Promise.resolve()));
  }

  /** One more download, unless that passes the limit: one conditional UPDATE, so parallel downloads cannot overshoot. */
  private async countDownload(link: ShareLinkEntity): Promise<void> {
    if (!(await this.links.countDownload(link.id))) throw gone(ShareLinkMessages.limitReached);
  }

  /** The install page's content for a build opened by something other than a share link (a tester's "latest build" link). */
  async pageOf(build: BuildEntity, downloadPath: string): Promise<SharedBuild> {
    return { ...(await this.pageParts(build)), locked: false, build, expiresAt: null, downloadPath };
  }

  private async pageParts(build: BuildEntity): Promise<Pick<SharedBuild, 'team' | 'changelog' | 'iconDataUrl'>> {
    const [name, logoDataUrl, provenance, iconDataUrl] = await Promise.all([
      this.settings.teamName(),
      this.settings.logoDataUrl(),
      this.builds.provenanceOf(build.id),
      this.icons.dataUrlOf(build.id),
    ]);
    return { team: { name, logoDataUrl }, changelog: provenance?.changelog ?? null, iconDataUrl };
  }

  private async page(token: string, link: ShareLinkEntity, build: BuildEntity, grantQuery: string | null): Promise<SharedBuild> {
    return {
      ...(await this.pageParts(build)),
      locked: grantQuery === null,
      build,
      expiresAt: link.expiresAt,
      downloadPath: `/api/v1/share/${token}/download${grantQuery ?? ''}`,
    };
  }

  /** The link's address again, from its sealed token; nothing when it has none or it no longer opens (another key). */
  private resent(link: ShareLinkEntity): { url: string | null; path: string } | undefined {
    if (link.tokenSealed === null) return undefined;
    try {
      return this.addressOf(this.secrets.open(link.tokenSealed, SEALED_TOKEN_PURPOSE));
    } catch (err) {
      if (err instanceof SecretUnreadable) return undefined;
      throw err;
    }
  }

  private addressOf(token: string): { url: string | null; path: string } {
    const path = `${INSTALL_PAGE_PATH}/${token}`;
    const base = this.publicUrl.publicBaseUrl();
    return { url: base ? `${base.replace(/\/$/, '')}${path}` : null, path };
  }

  /** Why the link no longer opens (the build being gone aside), or null while it does. */
  private endOf(link: ShareLinkEntity): string | null {
    if (link.revokedAt) return ShareLinkMessages.revoked;
    if (link.expiresAt.getTime() <= this.clock.nowMs()) return ShareLinkMessages.expired;
    if (link.downloadLimit !== null && link.downloads >= link.downloadLimit) return ShareLinkMessages.limitReached;
    return null;
  }

  private async usable(token: string): Promise<{ link: ShareLinkEntity; build: BuildEntity }> {
    const hash = linkTokenHash(token);
    const link = hash ? await this.links.findByTokenHash(hash) : null;
    if (!link) throw notFound(ShareLinkMessages.notFound);
    if (link.buildId === null) throw gone(ShareLinkMessages.buildDeleted);
    const end = this.endOf(link);
    if (end) throw gone(end);
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
