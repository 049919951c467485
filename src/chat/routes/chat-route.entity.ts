import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** A chat destination added in the dashboard (migration ChatRoutes); svc.config.json's are not rows. */
@Entity('chat_routes')
export class ChatRouteEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** `slack` or `teams`. */
  @Column({ type: 'varchar', length: 10 })
  kind: string;

  /** The Slack channel id, or the Teams route's name. */
  @Column({ type: 'varchar', length: 40 })
  target: string;

  /** A Teams webhook URL sealed with SVC_SECRETS_KEY (it carries its own signature); null for Slack. */
  @Column({ name: 'url_sealed', type: 'text', nullable: true })
  urlSealed: string | null;

  /** JSON array of bundle ids; NULL: every app. */
  @Column({ type: 'text', nullable: true })
  apps: string | null;

  /** JSON array of branch names; NULL: every build. */
  @Column({ type: 'text', nullable: true })
  branches: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
