import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** A pull request's one comment and the queue state of its next edit (migration ForgePullRequests). */
@Entity('forge_pull_requests')
export class ForgePullRequestEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  repository: string;

  @Column({ type: 'integer' })
  number: number;

  @Column({ name: 'comment_id', type: 'varchar', length: 40, nullable: true })
  commentId: string | null;

  /** JSON: build id → install URL (a share link made for the comment). */
  @Column({ name: 'install_links', type: 'text' })
  installLinks: string;

  @Column({ type: 'varchar', length: 12 })
  status: 'queued' | 'delivered' | 'failed';

  @Column({ type: 'integer', default: 1 })
  version: number;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @TimestampColumn({ name: 'next_attempt_at' })
  nextAttemptAt: Date;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;
}
