import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent, RELAY_ACTOR } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import type { BuildEntity } from '../builds/build.entity';
import { BuildFiles } from '../builds/build-files';
import { BuildQueryService } from '../builds/build-query.service';
import type { ComparisonBody } from '../builds/contents/build-comparison';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { forbidden } from '../common/errors/http-error';
import type { CarryDifference } from '../config/release-gate-config';
import { BuildReviewedEvent } from './events/gate-changed.event';
import { GatePoliciesService } from './gate-policies.service';
import type { ReviewVerdict } from './release-gate.entities';
import { ReleaseGateRepository, ReviewRow } from './release-gate.repository';
import { ReleaseGateService } from './release-gate.service';

export const ReviewMessages = {
  viewer: 'Viewers cannot review builds: a review needs the Admin, Developer or QA role',
  token: 'A token cannot review a build: reviews are made by a signed-in member, never by CI or another token',
} as const;

/**
 * Members' reviews of builds (docs/release-gate.md "Reviews"): one current review per member and
 * build, the latest wins; each is audited and re-evaluates the gate. A rebuild's reviews are carried
 * from the build before it when the file is byte-identical, or differs only as the policy allows.
 */
@Injectable()
export class BuildReviewsService {
  private readonly logger = new Logger('ReleaseGate');

  constructor(
    private readonly repository: ReleaseGateRepository,
    private readonly gate: ReleaseGateService,
    private readonly policies: GatePoliciesService,
    private readonly builds: BuildQueryService,
    private readonly files: BuildFiles,
    private readonly apps: AppCatalogue,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  async list(buildId: number): Promise<ReviewRow[]> {
    await this.builds.get(buildId);
    return this.repository.reviewsOf(buildId);
  }

  async review(principal: Principal, buildId: number, input: { verdict: ReviewVerdict; comment: string | null }): Promise<ReviewRow> {
    // The route admits tokens so that they hear why: a review is a person's word, never CI's.
    // A button in Slack is pressed by the member Slack's e-mail names: a person's word too.
    if (principal.via !== 'cookie' && principal.via !== 'slack') throw forbidden(ReviewMessages.token);
    if (principal.role === 'Viewer') throw forbidden(ReviewMessages.viewer);
    await this.builds.get(buildId);
    const review = await this.repository.recordReview({
      buildId,
      reviewerId: principal.userId,
      reviewerEmail: principal.email,
      reviewerDisplayName: principal.displayName,
      reviewerRole: principal.role,
      verdict: input.verdict,
      comment: input.comment,
      createdAt: this.clock.now(),
      carriedFromBuildId: null,
      carriedReason: null,
    });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'build.reviewed', `build:${buildId}`, { verdict: input.verdict, role: principal.role }));
    this.events.emit(BuildReviewedEvent.eventName, new BuildReviewedEvent(buildId));
    // The answer waits for the gate (and its forge status queued): the caller then reads the new checklist.
    await this.gate.refresh(buildId).catch((err: unknown) => this.logger.error(`Release gate of build ${buildId}: ${(err as Error)?.stack ?? err}`));
    return review;
  }

  /** After an upload: carries the reviews of the build before it when allowed, then evaluates the gate. */
  async afterUpload(buildId: number): Promise<void> {
    // No policy, no gate: a relay without one never reads its uploads back here, nor hashes them.
    if (!(await this.policies.anyPolicy())) return;
    const build = await this.builds.get(buildId);
    const app = await this.apps.findById(build.appId);
    const applied = app ? await this.policies.policyFor(app) : null;
    if (!applied) return;
    const sha = await this.digestOf(build);
    const comparison = await this.gate.comparisonOf(build);
    if (comparison.previousId !== null) {
      const previous = await this.builds.get(comparison.previousId);
      const reason = await this.carryReason(build, previous, sha, 'body' in comparison ? comparison.body : null, applied.policy.carryForward);
      if (reason) {
        const carried = await this.repository.carryReviews(previous.id, build.id, reason);
        if (carried) this.events.emit(AUDIT_EVENT, auditEvent(RELAY_ACTOR, 'build.reviews_carried', `build:${build.id}`, { from: previous.id, reviews: carried, reason }));
      }
    }
    await this.gate.refresh(buildId);
  }

  private async carryReason(build: BuildEntity, previous: BuildEntity, sha: string | null, body: ComparisonBody | null, carryForward: CarryDifference[]): Promise<string | null> {
    const previousSha = await this.digestOf(previous);
    if (sha && sha === previousSha) return `byte-identical to build #${previous.id} (same SHA-256)`;
    if (!carryForward.length || !body) return null;
    const differences = differencesOf(build, previous, body);
    const allowed = new Set(carryForward);
    if (!differences.length || differences.some((d) => !allowed.has(d))) return null;
    return `differs from build #${previous.id} only in ${differences.join(', ')}`;
  }

  /** The file's SHA-256, read once and kept. */
  private async digestOf(build: BuildEntity): Promise<string | null> {
    const known = (await this.repository.state(build.id))?.fileSha256;
    if (known) return known;
    const sha = await this.files.sha256(build.fileName);
    if (sha) await this.repository.saveSha256(build.id, sha, this.clock.now());
    return sha;
  }
}

/** How a build differs from the one before it, in the policy's words (`carryForward`). */
export function differencesOf(build: Pick<BuildEntity, 'versionName' | 'buildNumber'>, previous: Pick<BuildEntity, 'versionName' | 'buildNumber'>, c: ComparisonBody): CarryDifference[] {
  const found: CarryDifference[] = [];
  if (build.buildNumber !== previous.buildNumber) found.push('build_number');
  if (build.versionName !== previous.versionName) found.push('version_name');
  if (c.size.file.delta !== 0 || c.size.uncompressed.delta !== 0) found.push('size');
  const lists = { permissions: c.permissions, features: c.features, abis: c.abis, frameworks: c.frameworks, extensions: c.extensions, usage_descriptions: c.usage_descriptions, url_schemes: c.url_schemes, required_device_capabilities: c.required_device_capabilities } as const;
  for (const [name, change] of Object.entries(lists)) if (change.added.length || change.removed.length) found.push(name as CarryDifference);
  if (c.min_sdk?.changed) found.push('min_sdk');
  if (c.target_sdk?.changed) found.push('target_sdk');
  if (c.minimum_os?.changed) found.push('minimum_os');
  if (c.signing?.changed || c.signing?.schemes.added.length || c.signing?.schemes.removed.length) found.push('signing');
  return found;
}
