import { ApiProperty } from '@nestjs/swagger';
import type { BuildProvenanceEntity } from './build-provenance.entity';

/** Beyond the spec: where a build came from, as its upload said (docs/builds.md "Provenance"). */
export class BuildProvenance {
  @ApiProperty({ type: String, nullable: true, description: 'full commit SHA, lower-case', example: '9fceb02d0ae598e95dc970b74767f19372d61af8' })
  commit: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'feature/login' })
  branch: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'owner/name on a forge (GitLab: group/subgroup/name)', example: 'acme/app' })
  repository: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'pull (merge) request number', example: 42 })
  pull_request: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'the CI run that uploaded the build' })
  ci_url: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'what to test, as the uploader wrote it' })
  changelog: string | null;
}

export function toProvenance(row: BuildProvenanceEntity | null | undefined): BuildProvenance | null {
  if (!row) return null;
  return {
    commit: row.commit,
    branch: row.branch,
    repository: row.repository,
    pull_request: row.pullRequest,
    ci_url: row.ciUrl,
    changelog: row.changelog,
  };
}
