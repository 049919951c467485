import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** A build's Slack message in one channel (migration SlackMessages): updated in place by later notices. */
@Entity('slack_messages')
export class SlackMessageEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ type: 'varchar', length: 40 })
  channel: string;

  /** Slack's id of the message in its channel, as chat.update takes it. */
  @Column({ type: 'varchar', length: 40 })
  ts: string;

  /** The outbox message that last wrote it: an older one (a retry overtaken by a newer notice) is skipped. */
  @Column({ name: 'outbox_message_id', type: 'integer' })
  outboxMessageId: number;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
