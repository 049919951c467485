import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CommentEntity } from './comment.entity';

/** An image attached to a comment, stored under uploads/comments/. */
@Entity('comment_attachments')
export class CommentAttachmentEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'comment_id', type: 'integer' })
  commentId: number;

  @ManyToOne(() => CommentEntity, (c) => c.attachments, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'comment_id' })
  comment?: CommentEntity;

  /** Relative to the uploads folder: `comments/<name>`. */
  @Column({ name: 'file_path', type: 'varchar', length: 300 })
  filePath: string;

  @Column({ type: 'varchar', length: 50 })
  mime: string;

  @Column({ type: 'integer' })
  size: number;
}
