import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { linkTokenHash, newLinkToken } from '../common/crypto/link-token';
import { ErrorMessages } from '../common/errors/error-messages';
import { conflict, notFound } from '../common/errors/http-error';
import { PublicUrlService } from '../relay/public-url.service';
import { ShareLinksService } from '../share-links/share-links.service';
import type { AddTesterDto, CreateLatestLinkDto, UpdateTesterDto } from './dto/tester.dto';
import { CreatedLatestLink, LatestLinkItem, TesterItem, toLatestLinkItem, toTesterItem } from './testers.mapper';
import { TestersChangedEvent } from './events/testers-changed.event';
import { type Tester, TestersRepository } from './testers.repository';

export const TesterMessages = {
  notFound: 'Tester not found',
  exists: 'This address is already a tester of the app',
  latestNotFound: 'Latest-build link not found',
} as const;

export const LATEST_LINK_PATH = '/install/latest';

/**
 * Testers of an app (docs/integrations.md "Testers"): people e-mailed a share link of their own
 * for each new build; removing one revokes every link they were sent. And the app's permanent
 * "latest build" links. Who may change them is decided on the routes (writers); refusals by the
 * mail server are shown to Admins only.
 */
@Injectable()
export class TestersService {
  constructor(
    private readonly testers: TestersRepository,
    private readonly apps: AppCatalogue,
    private readonly shareLinks: ShareLinksService,
    private readonly publicUrl: PublicUrlService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  async list(appId: number, reader: Principal): Promise<TesterItem[]> {
    await this.app(appId);
    return (await this.testers.listOfApp(appId)).map((t) => toTesterItem(t, reader.role === 'Admin'));
  }

  async add(actor: Principal, appId: number, dto: AddTesterDto): Promise<TesterItem> {
    await this.app(appId);
    const email = dto.email.trim().toLowerCase();
    if (await this.testers.findByEmail(appId, email)) throw conflict(TesterMessages.exists);
    // A token nobody holds: each notice replaces it with one it carries.
    await this.testers.insert({ appId, email, name: dto.name ?? null, branches: dto.branches ?? null, onlyDone: dto.only_done ?? false, unsubscribeHash: newLinkToken().hash, now: this.clock.nowMs() });
    this.events.emit(TestersChangedEvent.eventName, new TestersChangedEvent());
    const tester = (await this.testers.findByEmail(appId, email))!;
    this.audit(actor, 'tester.added', tester, { email });
    return toTesterItem(tester, actor.role === 'Admin');
  }

  async update(actor: Principal, appId: number, id: number, dto: UpdateTesterDto): Promise<TesterItem> {
    const tester = await this.tester(appId, id);
    const changed = {
      name: dto.name === undefined ? tester.name : dto.name,
      branches: dto.branches === undefined ? tester.branches : dto.branches,
      onlyDone: dto.only_done ?? tester.onlyDone,
    };
    await this.testers.update(id, changed);
    this.audit(actor, 'tester.updated', tester, { branches: changed.branches, only_done: changed.onlyDone });
    return toTesterItem({ ...tester, ...changed }, actor.role === 'Admin');
  }

  /** The tester goes, and so does every link they were sent (revoked: their install pages answer 410). */
  async remove(actor: Principal, appId: number, id: number): Promise<void> {
    const tester = await this.tester(appId, id);
    await this.shareLinks.revokeLinks(actor, await this.testers.shareLinksOf(id));
    await this.testers.delete(id);
    this.events.emit(TestersChangedEvent.eventName, new TestersChangedEvent());
    this.audit(actor, 'tester.removed', tester, { email: tester.email });
  }

  /** One click from a notice: no sign-in, the token is the tester's. Null for a token no tester has. */
  async unsubscribe(token: string): Promise<Tester | null> {
    const hash = linkTokenHash(token);
    return hash ? this.testers.unsubscribe(hash, this.clock.nowMs()) : null;
  }

  async latestLinks(appId: number): Promise<LatestLinkItem[]> {
    await this.app(appId);
    return (await this.testers.latestOfApp(appId)).map(toLatestLinkItem);
  }

  async createLatestLink(actor: Principal, appId: number, dto: CreateLatestLinkDto): Promise<CreatedLatestLink> {
    await this.app(appId);
    const { token, hash } = newLinkToken();
    const link = await this.testers.insertLatest(appId, dto.branch ?? null, hash, this.clock.nowMs());
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'latest_link.created', `latest_link:${link.id}`, { app_id: appId, branch: link.branch }));
    const path = `${LATEST_LINK_PATH}/${token}`;
    const base = this.publicUrl.publicBaseUrl();
    return { ...toLatestLinkItem(link), url: base ? `${base.replace(/\/$/, '')}${path}` : null, path };
  }

  async revokeLatestLink(actor: Principal, appId: number, id: number): Promise<void> {
    await this.app(appId);
    if (!(await this.testers.revokeLatest(appId, id, this.clock.nowMs()))) throw notFound(TesterMessages.latestNotFound);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'latest_link.revoked', `latest_link:${id}`, { app_id: appId }));
  }

  private async app(appId: number): Promise<void> {
    if (!(await this.apps.findById(appId))) throw notFound(ErrorMessages.appNotFound);
  }

  private async tester(appId: number, id: number): Promise<Tester> {
    await this.app(appId);
    const tester = await this.testers.find(appId, id);
    if (!tester) throw notFound(TesterMessages.notFound);
    return tester;
  }

  private audit(actor: Principal, action: string, tester: Tester, details: Record<string, unknown>): void {
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), action, `tester:${tester.id}`, { app_id: tester.appId, ...details }));
  }
}
