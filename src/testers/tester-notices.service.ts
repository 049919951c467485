import { Injectable, Logger } from '@nestjs/common';
import { BuildQueryService } from '../builds/build-query.service';
import { Clock } from '../common/clock';
import { newLinkToken } from '../common/crypto/link-token';
import { TransactionRunner } from '../database/transaction-runner';
import { MailOutboxSender } from '../mail/mail-outbox.sender';
import { PublicUrlService } from '../relay/public-url.service';
import { SettingsService } from '../settings/settings.service';
import { ShareLinksService } from '../share-links/share-links.service';
import { testerNotice } from './tester-mail';
import { type Tester, TestersRepository } from './testers.repository';

/** How long a tester's link of one build opens it (a new build brings a new link). */
export const TESTER_LINK_DAYS = 30;
/** Where a notice's one-click unsubscribe points (relay root). */
export const UNSUBSCRIBE_PATH = '/unsubscribe';
/** Marks a queued e-mail as a tester's notice, so its bounce comes back here. */
export const TESTER_MAIL_ORIGIN = 'testers';

/**
 * A new build's notices (docs/integrations.md "Testers"): each subscribed tester of the app whose
 * branches match gets an e-mail through the outbox, with a share link of their own and a fresh
 * one-click unsubscribe token; once per tester and build (uploaded, or Done for `only_done`).
 */
@Injectable()
export class TesterNoticesService {
  private readonly logger = new Logger('Testers');

  constructor(
    private readonly testers: TestersRepository,
    private readonly builds: BuildQueryService,
    private readonly shareLinks: ShareLinksService,
    private readonly mail: MailOutboxSender,
    private readonly settings: SettingsService,
    private readonly publicUrl: PublicUrlService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /** `moment`: the build was uploaded, or has just become Done. */
  async buildLanded(buildId: number, appId: number, moment: 'uploaded' | 'done'): Promise<void> {
    if (!(await this.testers.hasTesters(appId))) return;
    const testers = (await this.testers.listOfApp(appId)).filter((t) => t.unsubscribedAt === null && t.onlyDone === (moment === 'done'));
    if (!testers.length) return;
    const listed = await this.builds.detail(buildId);
    const branch = listed.provenance?.branch ?? null;
    for (const tester of testers.filter((t) => t.branches === null || (branch !== null && t.branches.includes(branch)))) {
      try {
        await this.notify(tester, buildId, branch, listed.build.name, [listed.build.versionName, listed.build.buildNumber ? `(${listed.build.buildNumber})` : ''].join(' ').trim());
      } catch (err) {
        this.logger.error(`Notice of build ${buildId} to tester ${tester.id} not queued: ${(err as Error).stack ?? err}`);
      }
    }
  }

  private async notify(tester: Tester, buildId: number, branch: string | null, appName: string, version: string): Promise<void> {
    if (await this.testers.linkSent(tester.id, buildId)) return;
    // The share link is made first, outside the transaction (its module writes through its own
    // repository); a crash before the commit below leaves an unused link, never a notice without one.
    const link = await this.shareLinks.create(buildId, { userId: null, email: tester.email, displayName: 'tester notice' }, { days: TESTER_LINK_DAYS });
    const unsubscribe = newLinkToken();
    const base = this.publicUrl.publicBaseUrl()?.replace(/\/$/, '') ?? '';
    const message = testerNotice({
      teamName: await this.settings.teamName(),
      appName,
      version,
      branch,
      installLink: link.url ?? `${base}${link.path!}`,
      unsubscribeLink: `${base}${UNSUBSCRIBE_PATH}/${unsubscribe.token}`,
    });
    await this.transactions.run(async () => {
      await this.testers.insertLink(tester.id, buildId, link.id);
      await this.testers.setUnsubscribeHash(tester.id, unsubscribe.hash);
      await this.mail.queue({ to: tester.email, ...message, origin: TESTER_MAIL_ORIGIN, context: { appId: tester.appId } });
    });
  }

  /** The mail server refused a notice for good: kept on the tester for Admins to see. */
  async refused(appId: number, email: string, error: string): Promise<void> {
    await this.testers.recordRefusal(appId, email, error, this.clock.nowMs());
  }
}
