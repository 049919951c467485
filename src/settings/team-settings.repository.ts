import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { lockedForUpdate } from '../database/row-lock';
import { TeamSettingsEntity } from './team-settings.entity';

const SETTINGS_ID = 1;

interface SettingsRow {
  id: number | string;
  team_name: string;
  logo_path: string | null;
}

/** The team_settings table: one row (id 1), created by the Team migration. */
@Injectable()
export class TeamSettingsRepository {
  private readonly sql: QueryBuilder;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = QueryBuilder.of(dataSource);
  }

  /** The row; `manager` inside a transaction locks it until the transaction ends (PostgreSQL). */
  async find(manager?: EntityManager): Promise<TeamSettingsEntity | null> {
    const statement = this.sql.prepare(`settings.row${manager ? ' locked' : ''}`, (v: { id: number }) => {
      const select = this.sql.db.selectFrom('team_settings').select(['id', 'team_name', 'logo_path']).where('id', '=', v.id);
      return manager ? lockedForUpdate(this.sql, select) : select;
    });
    const [row] = await statement.run<SettingsRow>(manager ?? this.dataSource.manager, { id: SETTINGS_ID });
    return row ? Object.assign(new TeamSettingsEntity(), { id: Number(row.id), teamName: row.team_name, logoPath: row.logo_path }) : null;
  }

  async update(changes: Partial<Pick<TeamSettingsEntity, 'teamName' | 'logoPath'>>, manager: EntityManager): Promise<void> {
    const set = { team_name: changes.teamName, logo_path: changes.logoPath };
    const columns = (Object.keys(set) as (keyof typeof set)[]).filter((column) => set[column] !== undefined);
    if (!columns.length) return;
    const statement = this.sql.prepare(`settings.update ${columns.join(',')}`, (v: typeof set & { id: number }) =>
      this.sql.db
        .updateTable('team_settings')
        .set(Object.fromEntries(columns.map((column) => [column, v[column]])))
        .where('id', '=', v.id),
    );
    await statement.run(manager, { ...set, id: SETTINGS_ID });
  }
}
