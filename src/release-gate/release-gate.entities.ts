import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { BuildEntity } from '../builds/build.entity';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';

export type ReviewVerdict = 'approve' | 'request_changes';
export const REVIEW_VERDICTS: readonly ReviewVerdict[] = ['approve', 'request_changes'];
export type GateState = 'pending' | 'passed' | 'failed';

/**
 * A member's current review of a build (one per member and build: a new one replaces it). The
 * reviewer's e-mail, name and role are kept as they were, so a review outlives the account. A review
 * carried from an earlier build (docs/release-gate.md "Carried reviews") says from which and why.
 */
@Entity('build_reviews')
@Index('UQ_build_reviews_member', ['buildId', 'reviewerId'], { unique: true })
export class BuildReviewEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @ManyToOne(() => BuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'build_id' })
  build?: BuildEntity;

  @Column({ name: 'reviewer_id', type: 'integer', nullable: true })
  reviewerId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'reviewer_id' })
  reviewer?: UserEntity | null;

  @Column({ name: 'reviewer_email', type: 'varchar', length: 320 })
  reviewerEmail: string;

  @Column({ name: 'reviewer_display_name', type: 'varchar', length: 200, nullable: true })
  reviewerDisplayName: string | null;

  /** The reviewer's role when reviewing: what the approval counts for. */
  @Column({ name: 'reviewer_role', type: 'varchar', length: 20 })
  reviewerRole: string;

  @Column({ type: 'varchar', length: 20 })
  verdict: ReviewVerdict;

  @Column({ type: 'text', nullable: true })
  comment: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'carried_from_build_id', type: 'integer', nullable: true })
  carriedFromBuildId: number | null;

  @Column({ name: 'carried_reason', type: 'varchar', length: 300, nullable: true })
  carriedReason: string | null;
}

/** A policy set in the dashboard: `default` (the team's) or `app:<id>`. Policies from svc.config.json are never stored. */
@Entity('release_gate_policies')
export class ReleaseGatePolicyEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  scope: string;

  /** The policy as JSON, in svc.config.json's shape. */
  @Column({ type: 'text' })
  policy: string;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}

/**
 * A build's gate as last evaluated: what the inbox filters on and the forge status is made from.
 * `unpublished` is set in the transaction that changes the state and cleared once the change was
 * handed on (forge outbox, webhooks), so a relay killed in between hands it on at its next start.
 */
@Entity('release_gate_states')
export class ReleaseGateStateEntity {
  @PrimaryColumn({ name: 'build_id', type: 'integer' })
  buildId: number;

  @ManyToOne(() => BuildEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'build_id' })
  build?: BuildEntity;

  /** pending, passed, failed; `none` when no policy applies. */
  @Index('IDX_release_gate_states_state')
  @Column({ type: 'varchar', length: 10 })
  state: GateState | 'none';

  /** The checklist as JSON (GateChecklist). */
  @Column({ type: 'text' })
  checklist: string;

  /** SHA-256 of the build's file (hex), read once: what tells a byte-identical rebuild. */
  @Column({ name: 'file_sha256', type: 'varchar', length: 64, nullable: true })
  fileSha256: string | null;

  @Column({ type: 'integer', default: 0 })
  unpublished: number;

  /** Counts the stored changes of this gate: what tells an older forge status from a newer one (migration GateStatusVersions). */
  @Column({ type: 'integer', default: 0 })
  version: number;

  @TimestampColumn({ name: 'evaluated_at' })
  evaluatedAt: Date;
}
