import { ApiProperty } from '@nestjs/swagger';
import type { AppEntity } from '../app-catalogue/app.entity';
import { isoWithMillis } from '../common/time';
import { shownName } from '../users/users.mapper';
import type { GateCheck } from './gate-evaluation';
import type { PolicyEntry } from './gate-policies.service';
import { REVIEW_VERDICTS, type ReviewVerdict } from './release-gate.entities';
import type { ReviewRow } from './release-gate.repository';
import type { GateChecklist } from './release-gate.service';

const GATE_STATES = ['none', 'pending', 'passed', 'failed'] as const;

/** A member's current review of a build (beyond the spec; docs/release-gate.md). */
export class BuildReview {
  @ApiProperty()
  id: number;
  @ApiProperty()
  build_id: number;
  @ApiProperty({ type: Number, nullable: true, description: "the reviewer's member id; null once their account was deleted" })
  reviewer_id: number | null;
  @ApiProperty({ description: 'display name, or the part of the e-mail before @ when none' })
  reviewer: string;
  @ApiProperty({ description: 'the role the reviewer had when reviewing: what the approval counts for' })
  role: string;
  @ApiProperty({ enum: REVIEW_VERDICTS })
  verdict: ReviewVerdict;
  @ApiProperty({ type: String, nullable: true })
  comment: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'the earlier build this review was carried from; null for a review of this build' })
  carried_from_build_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'why it was carried (byte-identical file, or the differences the policy allows)' })
  carried_reason: string | null;
}

export class BuildReviewList {
  @ApiProperty({ type: [BuildReview], description: 'one current review per member, oldest first' })
  reviews: BuildReview[];
}

export class GateCheckItem {
  @ApiProperty({ example: 'approvals.QA' })
  key: string;
  @ApiProperty({ example: '2 QA approvals' })
  label: string;
  @ApiProperty({ enum: ['met', 'unmet', 'waiting'] })
  outcome: GateCheck['outcome'];
  @ApiProperty({ example: 'needs 1 more QA approval (1 of 2: qa-1)' })
  detail: string;
  @ApiProperty({ type: String, nullable: true, description: 'link to the evidence (the reviews, the comparison, the test run); null without a public URL' })
  evidence: string | null;
}

export class GatePolicyRef {
  @ApiProperty({ enum: ['app', 'default'] })
  scope: 'app' | 'default';
  @ApiProperty({ enum: ['file', 'dashboard'], description: 'file: svc.config.json (read-only in the dashboard)' })
  source: 'file' | 'dashboard';
  @ApiProperty()
  block_done: boolean;
}

/** GET /builds/:id/gate. */
export class BuildGate {
  @ApiProperty()
  build_id: number;
  @ApiProperty({ enum: GATE_STATES, description: 'none: no policy applies' })
  state: GateChecklist['state'];
  @ApiProperty({ type: GatePolicyRef, nullable: true })
  policy: GatePolicyRef | null;
  @ApiProperty({ type: Number, nullable: true, description: 'the previous build of the same app and platform the change rules compared with' })
  compared_with: number | null;
  @ApiProperty({ type: [GateCheckItem] })
  checks: GateCheckItem[];
  @ApiProperty()
  description: string;
}

export class GateStateItem {
  @ApiProperty()
  build_id: number;
  @ApiProperty({ enum: GATE_STATES })
  state: GateChecklist['state'];
}

export class GateStateList {
  @ApiProperty({ type: [GateStateItem], description: 'builds never evaluated are absent' })
  states: GateStateItem[];
}

export class GatePolicyItem {
  @ApiProperty({ type: 'object', additionalProperties: true, description: "the policy, normalised (svc.config.json's shape)" })
  policy: Record<string, unknown>;
  @ApiProperty({ enum: ['file', 'dashboard'], description: 'file: svc.config.json, read-only here' })
  source: 'file' | 'dashboard';
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  updated_at: string | null;
}

export class AppGatePolicy extends GatePolicyItem {
  @ApiProperty({ type: Number, nullable: true, description: 'null: a bundle id of the file no app has yet' })
  app_id: number | null;
  @ApiProperty({ type: String, nullable: true })
  app_name: string | null;
  @ApiProperty({ type: String, nullable: true })
  platform: string | null;
  @ApiProperty()
  bundle_id: string;
}

export class GatePolicyList {
  @ApiProperty({ type: GatePolicyItem, nullable: true, description: "the team default; null when none" })
  default: GatePolicyItem | null;
  @ApiProperty({ type: [AppGatePolicy] })
  apps: AppGatePolicy[];
}

export function toBuildReview(review: ReviewRow): BuildReview {
  return {
    id: review.id,
    build_id: review.buildId,
    reviewer_id: review.reviewerId,
    reviewer: shownName({ displayName: review.reviewerDisplayName, email: review.reviewerEmail }),
    role: review.reviewerRole,
    verdict: review.verdict,
    comment: review.comment,
    created_at: isoWithMillis(review.createdAt),
    carried_from_build_id: review.carriedFromBuildId,
    carried_reason: review.carriedReason,
  };
}

export function toBuildGate(checklist: GateChecklist): BuildGate {
  return {
    build_id: checklist.buildId,
    state: checklist.state,
    policy: checklist.policy && { scope: checklist.policy.scope, source: checklist.policy.source, block_done: checklist.policy.blockDone },
    compared_with: checklist.comparedWith,
    checks: checklist.checks.map((c) => ({ key: c.key, label: c.label, outcome: c.outcome, detail: c.detail, evidence: c.evidence })),
    description: checklist.description,
  };
}

export function toPolicyItem(entry: PolicyEntry): GatePolicyItem {
  return { policy: { ...entry.policy }, source: entry.source, updated_at: entry.updatedAt ? isoWithMillis(entry.updatedAt) : null };
}

export function toAppPolicy(app: AppEntity | null, bundleId: string, entry: PolicyEntry): AppGatePolicy {
  return { ...toPolicyItem(entry), app_id: app?.id ?? null, app_name: app?.name ?? null, platform: app?.platform ?? null, bundle_id: bundleId };
}
