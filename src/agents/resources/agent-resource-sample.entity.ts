import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** One CPU/memory sample of an agent: at most one per agent per clock minute (the latest of that minute). */
@Entity('agent_resource_samples')
@Index('UQ_agent_resource_samples_agent_minute', ['agentName', 'minute'], { unique: true })
@Index('IDX_agent_resource_samples_minute', ['minute'])
export class AgentResourceSampleEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'agent_name', type: 'varchar', length: 64 })
  agentName: string;

  /** Start of the clock minute the sample belongs to (the uniqueness key and the range index). */
  @TimestampColumn({ name: 'minute' })
  minute: Date;

  /** When the agent's sample arrived, to the second. */
  @TimestampColumn({ name: 'recorded_at' })
  recordedAt: Date;

  @Column({ name: 'cpu_percent', type: 'real' })
  cpuPercent: number;

  @Column({ name: 'mem_percent', type: 'real' })
  memPercent: number;
}
