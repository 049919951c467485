import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Where one build came from, as its upload said (migration BuildProvenance); absent when it said nothing. */
@Entity('build_provenance')
export class BuildProvenanceEntity {
  @PrimaryColumn({ name: 'build_id', type: 'integer' })
  buildId: number;

  /** Full SHA, lower-case (40 hex for SHA-1 repositories, 64 for SHA-256 ones). */
  @Column({ name: 'commit_sha', type: 'varchar', length: 64, nullable: true })
  commit: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  branch: string | null;

  /** `owner/name` (GitLab: `group/subgroup/name`), matched against the configured forges. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  repository: string | null;

  @Column({ name: 'pull_request', type: 'integer', nullable: true })
  pullRequest: number | null;

  @Column({ name: 'ci_url', type: 'varchar', length: 2048, nullable: true })
  ciUrl: string | null;

  @Column({ type: 'text', nullable: true })
  changelog: string | null;
}
