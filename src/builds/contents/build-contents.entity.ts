import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/**
 * What a build holds (src/inspection/build-contents.ts), read once at upload, or on first request for
 * a build uploaded before the relay read contents; goes with its build (CASCADE).
 */
@Entity('build_contents')
export class BuildContentsEntity {
  @PrimaryColumn({ name: 'build_id', type: 'integer' })
  buildId: number;

  /** CONTENTS_FORMAT of `data` when it was written. */
  @Column({ type: 'integer' })
  format: number;

  /** The BuildContents as JSON text (dialect-neutral; read whole, never queried inside). */
  @Column({ type: 'text' })
  data: string;

  @TimestampColumn({ name: 'computed_at' })
  computedAt: Date;
}
