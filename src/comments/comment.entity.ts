import { Column, Entity, Index, JoinColumn, ManyToOne, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';
import { CommentAttachmentEntity } from './comment-attachment.entity';

/** A comment on a build. The author's name and e-mail are kept so the comment outlives their account. */
@Entity('comments')
export class CommentEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ name: 'author_id', type: 'integer', nullable: true })
  authorId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'author_id' })
  author?: UserEntity | null;

  /** The author's display name when posting, as stored (null when they had none). */
  @Column({ name: 'author_display_name', type: 'varchar', length: 200, nullable: true })
  authorDisplayName: string | null;

  @Column({ name: 'author_email', type: 'varchar', length: 320 })
  authorEmail: string;

  @Column({ type: 'text' })
  body: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @OneToMany(() => CommentAttachmentEntity, (a) => a.comment)
  attachments?: CommentAttachmentEntity[];
}
