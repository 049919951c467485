import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../builds.repository';
import type { UploadBuildFields } from '../dto/upload-build.dto';
import { BuildProvenanceEntity } from './build-provenance.entity';

/** The build_provenance rows (builds owns the table). */
@Injectable()
export class BuildProvenanceRepository {
  constructor(@InjectRepository(BuildProvenanceEntity) private readonly rows: Repository<BuildProvenanceEntity>) {}

  /** The upload's provenance fields as a row, or null when it gave none. */
  static fromFields(buildId: number, fields: UploadBuildFields): BuildProvenanceEntity | null {
    const row: BuildProvenanceEntity = {
      buildId,
      commit: fields.commit?.toLowerCase() ?? null,
      branch: fields.branch ?? null,
      repository: fields.repository ?? null,
      pullRequest: fields.pull_request ?? null,
      ciUrl: fields.ci_url ?? null,
      changelog: fields.changelog ?? null,
    };
    const { buildId: _, ...given } = row;
    return Object.values(given).some((value) => value !== null) ? row : null;
  }

  /** Inside the upload's transaction. */
  async insert(row: BuildProvenanceEntity, manager: EntityManager): Promise<void> {
    await insertRow(manager, 'build_provenance', {
      build_id: row.buildId,
      commit_sha: row.commit,
      branch: row.branch,
      repository: row.repository,
      pull_request: row.pullRequest,
      ci_url: row.ciUrl,
      changelog: row.changelog,
    });
  }

  of(buildId: number): Promise<BuildProvenanceEntity | null> {
    return this.rows.findOneBy({ buildId });
  }

  /** Builds uploaded with this commit, oldest first (several platforms may share one commit). */
  async buildsOfCommit(repository: string, commit: string): Promise<number[]> {
    const rows = await this.rows.find({ where: { repository, commit }, select: { buildId: true }, order: { buildId: 'ASC' } });
    return rows.map((row) => row.buildId);
  }
}
