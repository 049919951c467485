import { Injectable } from '@nestjs/common';
import type { ListedBuild } from '../builds/build-page';
import { BuildQueryService } from '../builds/build-query.service';
import { isFinalStatus, statusWords } from '../builds/build-status';
import { reaches } from '../config/chat-config';
import { HubDeviceTestResults } from '../device-tests/results/hub-device-test-results';
import { PublicUrlService } from '../relay/public-url.service';
import { ReleaseGateService } from '../release-gate/release-gate.service';
import { type BuildNotice, type NoticeCause, noticeHeadline, slackBlocks, teamsMessage } from './build-notice';
import { ChatRoutesService } from './routes/chat-routes.service';
import { SlackNoticeSender } from './slack/slack-senders';
import { TeamsSender } from './teams/teams-sender';

/**
 * A build's notice to every chat destination whose apps and branches it matches (docs/integrations.md
 * "Slack and Microsoft Teams"), the build read fresh each time (the destinations are kept until they
 * change: ChatRoutesRepository) and queued in the outbox: Slack's message is
 * updated in place on every change; Teams, which cannot edit, gets a card per upload, verdict,
 * gate state and device-test result.
 */
@Injectable()
export class ChatNoticesService {
  constructor(
    private readonly routes: ChatRoutesService,
    private readonly builds: BuildQueryService,
    private readonly gate: ReleaseGateService,
    private readonly deviceTests: HubDeviceTestResults,
    private readonly publicUrl: PublicUrlService,
    private readonly slack: SlackNoticeSender,
    private readonly teams: TeamsSender,
  ) {}

  async buildChanged(buildId: number, cause: NoticeCause, options: { teams: boolean } = { teams: true }): Promise<void> {
    const usable = (await this.routes.all()).filter((r) => !r.problem);
    const channels = usable.filter((r) => r.kind === 'slack');
    const teams = options.teams ? usable.filter((r) => r.kind === 'teams') : [];
    if (!channels.length && !teams.length) return;
    const listed = await this.builds.detail(buildId);
    const branch = listed.provenance?.branch ?? null;
    const bundleId = listed.build.bundleId;
    const toSlack = channels.filter((c) => reaches(c, bundleId, branch));
    const toTeams = teams.filter((t) => reaches(t, bundleId, branch));
    if (!toSlack.length && !toTeams.length) return;
    const notice = await this.noticeOf(listed, cause);
    const text = noticeHeadline(notice);
    const blocks = slackBlocks(notice);
    for (const route of toSlack) await this.slack.queue({ buildId, channel: route.target, text, blocks });
    for (const route of toTeams) await this.teams.queue({ route: route.target, message: teamsMessage(notice) });
  }

  private async noticeOf({ build, provenance }: ListedBuild, cause: NoticeCause): Promise<BuildNotice> {
    const buildId = build.id;
    const status = build.statusLabel;
    const decided = isFinalStatus(status) ? (await this.builds.history(buildId)).filter((h) => h.toStatus === status).at(-1) : undefined;
    const gate = (await this.gate.decided([buildId])).get(buildId)?.checklist ?? null;
    const base = this.publicUrl.publicBaseUrl()?.replace(/\/+$/, '') ?? null;
    return {
      buildId,
      appName: build.name,
      bundleId: build.bundleId,
      platform: build.platform,
      version: [build.versionName, build.buildNumber ? `(${build.buildNumber})` : ''].join(' ').trim(),
      branch: provenance?.branch ?? null,
      status: statusWords(status, decided ? (decided.changedByDisplayName ?? decided.changedByEmail) : null),
      gate: gate ? { state: gate.state, description: gate.description } : null,
      deviceTests: (await this.deviceTests.forBuild(buildId)).state,
      url: base ? `${base}/builds/${buildId}` : null,
      cause,
    };
  }
}
