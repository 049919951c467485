import { Injectable } from '@nestjs/common';
import { AgentLocator } from '../agents/agent-locator.service';
import { BuildQueryService } from '../builds/build-query.service';
import type { ListedBuild } from '../builds/build-page';
import { Clock } from '../common/clock';
import type { Principal } from '../common/auth/principal';
import { badRequest } from '../common/errors/http-error';
import { PublicUrlService } from '../relay/public-url.service';
import type { ReportIssueDto } from './dto/report-issue.dto';
import { DEFAULT_CLIP_MS } from './evidence/issue-evidence';
import { IssueEvidence } from './evidence/issue-evidence';
import { TrackerOutboxSender } from './delivery/tracker-outbox.sender';
import { TransactionRunner } from '../database/transaction-runner';
import { TrackerDirectory } from './tracker-directory';
import { TrackerIssuesRepository } from './tracker-issues.repository';
import { BuildIssue, BuildIssues, toBuildIssue } from './trackers.mapper';

/** What a tracker's webhook says of one issue. */
export interface IssueStatusReport {
  externalId: string;
  status: string;
  closed: boolean;
}

/**
 * "Report issue" (docs/integrations.md "Issue trackers"): a report is checked and composed at once
 * (the build's facts as they are now, the device and OS of its session) and queued in
 * `tracker_issues` with its outbox message; the outbox files it and attaches the evidence. Trackers' webhooks bring
 * each issue's status back onto its build.
 */
@Injectable()
export class TrackersService {
  constructor(
    private readonly directory: TrackerDirectory,
    private readonly issues: TrackerIssuesRepository,
    private readonly builds: BuildQueryService,
    private readonly evidence: IssueEvidence,
    private readonly agents: AgentLocator,
    private readonly publicUrl: PublicUrlService,
    private readonly sender: TrackerOutboxSender,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async report(buildId: number, dto: ReportIssueDto, by: Principal, requestOrigin: string): Promise<BuildIssue> {
    const listed = await this.builds.detail(buildId);
    const entry = this.directory.find(dto.tracker);
    if (!entry) throw badRequest(`tracker must be one of the configured trackers (${this.names()})`);
    if (!entry.client) throw badRequest(`Tracker "${dto.tracker}" is not usable: ${entry.problem}`);
    const project = this.directory.projectFor(entry.tracker, listed.build.bundleId);
    if (!project) throw badRequest(`Tracker "${dto.tracker}" has no project for ${listed.build.bundleId}`);
    if (dto.from !== undefined && dto.to !== undefined && dto.from >= dto.to) throw badRequest('from must be before to');
    const recordingId = dto.recordingId ?? null;
    const sessionId = dto.sessionId ?? null;
    const recording = recordingId !== null || sessionId !== null ? await this.evidence.source({ recordingId, sessionId }) : null;
    if (recordingId !== null && !recording) throw badRequest('recordingId names no recording kept (72 hours)');
    const device = await this.deviceOf(sessionId ?? recording?.sessionId ?? null);
    const now = this.clock.now();
    const row = {
      buildId,
      tracker: entry.tracker.name,
      project,
      title: dto.title,
      description: compose(listed, dto, by, device, this.publicUrl.originFor(requestOrigin), recording?.id ?? null),
      recordingId: recording?.id ?? null,
      sessionId: sessionId ?? recording?.sessionId ?? null,
      fromMs: dto.from ?? null,
      toMs: dto.to ?? null,
      reportedBy: by.userId || null,
      status: 'queued' as const,
      lastError: null,
      externalId: null,
      externalUrl: null,
      externalStatus: null,
      closedAt: null,
      buildStatusAtClose: null,
      createdAt: now,
      updatedAt: now,
    };
    // The issue and its outbox message commit together: a kill -9 right after the answer loses neither.
    const id = await this.transactions.run(async () => {
      const inserted = await this.issues.insert(row);
      await this.sender.queue({ id: inserted, tracker: row.tracker });
      return inserted;
    });
    return toBuildIssue({ ...row, id });
  }

  async list(buildId: number): Promise<BuildIssues> {
    await this.builds.get(buildId);
    return { trackers: this.directory.usable(), items: (await this.issues.byBuild(buildId)).map(toBuildIssue) };
  }

  /** A tracker's webhook: the issue's status, and when it closed, with the build's review status at that moment. */
  async statusChanged(tracker: string, report: IssueStatusReport): Promise<number> {
    const rows = await this.issues.byExternal(tracker, report.externalId);
    const now = this.clock.now();
    for (const row of rows) {
      const wasClosed = row.closedAt !== null;
      const build = report.closed && !wasClosed ? await this.builds.get(row.buildId).catch(() => null) : null;
      await this.issues.settle(row.id, ['queued', 'attaching', 'filed', 'failed'], {
        externalStatus: report.status.slice(0, 100),
        closedAt: report.closed ? (row.closedAt ?? now) : null,
        buildStatusAtClose: report.closed ? (wasClosed ? row.buildStatusAtClose : (build?.statusLabel ?? null)) : null,
        updatedAt: now,
      });
    }
    return rows.length;
  }

  private names(): string {
    return this.directory.names().join(', ') || 'none configured';
  }

  private async deviceOf(sessionId: string | null): Promise<string | null> {
    if (!sessionId) return null;
    const place = await this.agents.locate(sessionId).catch(() => null);
    return place ? `${place.device.name} (${place.device.platform} ${place.device.osVersion})` : null;
  }
}

/** The issue's text: the reporter's words, then the build's facts, in paragraphs. */
function compose(listed: ListedBuild, dto: ReportIssueDto, by: Principal, device: string | null, origin: string, recordingId: number | null): string {
  const { build, provenance } = listed;
  const version = [build.versionName, build.buildNumber ? `(${build.buildNumber})` : null].filter(Boolean).join(' ') || 'unknown version';
  const paragraphs = [dto.description?.trim() || null, `Build: ${build.name} ${version}, ${build.platform}, ${build.bundleId}, review status ${build.statusLabel ?? 'none'}.`];
  paragraphs.push(`Build page: ${origin}/builds/${build.id}`);
  if (provenance) {
    const from = [provenance.repository, provenance.commit ? `@ ${provenance.commit}` : null, provenance.branch ? `on ${provenance.branch}` : null].filter(Boolean).join(' ');
    paragraphs.push(`Provenance: ${from || 'unknown'}${provenance.pullRequest ? `, pull request #${provenance.pullRequest}` : ''}${provenance.ciUrl ? `, CI ${provenance.ciUrl}` : ''}.`);
  }
  if (device) paragraphs.push(`Device: ${device}.`);
  if (recordingId !== null) {
    const range = dto.from !== undefined || dto.to !== undefined ? `${dto.from ?? 'start'} ms to ${dto.to ?? 'end'} ms` : `the last ${DEFAULT_CLIP_MS / 1000} seconds`;
    paragraphs.push(`Evidence: recording #${recordingId}, ${range} (clip, screenshot and UI tree attached).`);
  }
  paragraphs.push(`Reported by ${by.displayName ?? by.email} through svc relay.`);
  return paragraphs.filter((p): p is string => !!p).map((p) => p.replace(/\n{2,}/g, '\n')).join('\n\n');
}
