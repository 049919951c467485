import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A build's launcher icon (docs/builds.md "App icons"); goes with its build (CASCADE). */
@Entity('build_icons')
export class BuildIconEntity {
  @PrimaryColumn({ name: 'build_id', type: 'integer' })
  buildId: number;

  /** image/png or image/webp */
  @Column({ type: 'varchar', length: 20 })
  mime: string;

  /** Hex SHA-256 of the bytes: the ETag. */
  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ name: 'data_base64', type: 'text' })
  dataBase64: string;
}
