import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/** A person who gets an e-mail when a build of the app lands (migration Testers); no account needed. */
@Entity('app_testers')
export class TesterEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'app_id', type: 'integer' })
  appId: number;

  /** Lower-case; one tester per app and address. */
  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  name: string | null;

  /** JSON array of branch names the tester hears about; NULL: every branch (and builds without one). */
  @Column({ type: 'text', nullable: true })
  branches: string | null;

  /** Notified once a build is Done instead of when it is uploaded. */
  @Column({ name: 'only_done', type: 'boolean', default: false })
  onlyDone: boolean;

  /** SHA-256 of the one-click unsubscribe token in every notice. */
  @Column({ name: 'unsubscribe_hash', type: 'varchar', length: 64, unique: true })
  unsubscribeHash: string;

  @TimestampColumn({ name: 'unsubscribed_at', nullable: true })
  unsubscribedAt: Date | null;

  /** The mail server's final refusal of the newest notice (a bounce), for Admins. */
  @Column({ name: 'last_refusal', type: 'varchar', length: 500, nullable: true })
  lastRefusal: string | null;

  @TimestampColumn({ name: 'refused_at', nullable: true })
  refusedAt: Date | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}

/** The share link a tester was sent for a build (one per tester and build): revoking the tester revokes them. */
@Entity('tester_links')
export class TesterLinkEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tester_id', type: 'integer' })
  testerId: number;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ name: 'share_link_id', type: 'integer' })
  shareLinkId: number;
}

/** A permanent, revocable link to the newest build of an app (and branch): `/install/latest/<token>`. */
@Entity('latest_build_links')
export class LatestLinkEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'app_id', type: 'integer' })
  appId: number;

  /** NULL: the newest build of any branch. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  branch: string | null;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
