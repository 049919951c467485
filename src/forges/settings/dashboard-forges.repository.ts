import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { ForgeEntity, ForgeRepositoryEntity } from './forge.entity';

/** A dashboard forge with the repositories it serves. */
export interface DashboardForgeRow {
  forge: ForgeEntity;
  repositories: string[];
}

/** The `forges` and `forge_repositories` tables: a forge and its repositories always change together. */
@Injectable()
export class DashboardForgesRepository {
  constructor(
    @InjectRepository(ForgeEntity) private readonly forges: Repository<ForgeEntity>,
    @InjectRepository(ForgeRepositoryEntity) private readonly repositories: Repository<ForgeRepositoryEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  async all(): Promise<DashboardForgeRow[]> {
    const forges = await this.forges.find({ order: { id: 'ASC' } });
    const repositories = forges.length ? await this.repositories.find({ where: { forgeId: In(forges.map((f) => f.id)) }, order: { key: 'ASC' } }) : [];
    return forges.map((forge) => ({ forge, repositories: repositories.filter((r) => r.forgeId === forge.id).map((r) => r.repository) }));
  }

  async findOne(id: number): Promise<DashboardForgeRow | null> {
    const forge = await this.forges.findOneBy({ id });
    if (!forge) return null;
    const repositories = await this.repositories.find({ where: { forgeId: id }, order: { key: 'ASC' } });
    return { forge, repositories: repositories.map((r) => r.repository) };
  }

  /** Inserts the forge and its repositories in one transaction; a repository another forge serves fails it with a unique violation. */
  create(forge: Omit<ForgeEntity, 'id'>, repositories: string[]): Promise<ForgeEntity> {
    return this.transactions.run(async (manager) => {
      const saved = await manager.getRepository(ForgeEntity).save(manager.getRepository(ForgeEntity).create(forge));
      await this.claim(manager.getRepository(ForgeRepositoryEntity), saved.id, repositories);
      return saved;
    });
  }

  /** Changes the forge and, when given, replaces its repositories, in one transaction. */
  update(id: number, changes: Partial<Omit<ForgeEntity, 'id'>>, repositories: string[] | null): Promise<void> {
    return this.transactions.run(async (manager) => {
      await manager.getRepository(ForgeEntity).update({ id }, changes);
      if (!repositories) return;
      const rows = manager.getRepository(ForgeRepositoryEntity);
      await rows.delete({ forgeId: id });
      await this.claim(rows, id, repositories);
    });
  }

  /** Deletes the forge (its repositories go with it: ON DELETE CASCADE); false when there was none. */
  async remove(id: number): Promise<boolean> {
    return ((await this.forges.delete({ id })).affected ?? 0) > 0;
  }

  private async claim(rows: Repository<ForgeRepositoryEntity>, forgeId: number, repositories: string[]): Promise<void> {
    await rows.insert(repositories.map((repository) => ({ key: repository.toLowerCase(), forgeId, repository })));
  }
}
