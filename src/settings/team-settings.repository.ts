import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { lockedForUpdate } from '../database/row-lock';
import { TeamSettingsEntity } from './team-settings.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

const SETTINGS_ID = 1;

interface SettingsRow {
  id: number | string;
  team_name: string;
  logo_path: string | null;
  reject_reason_required: boolean | number;
}

type Changes = Partial<Pick<TeamSettingsEntity, 'teamName' | 'logoPath' | 'rejectReasonRequired'>>;

/** The team_settings table: one row (id 1), created by the Team migration. */
@Injectable()
export class TeamSettingsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** The row; `tx` inside a transaction locks it until the transaction ends (PostgreSQL). */
  async find(tx?: Sql): Promise<TeamSettingsEntity | null> {
    const statement = this.sql.prepare(`settings.row${tx ? ' locked' : ''}`, (v: { id: number }) => {
      const select = this.sql.db.selectFrom('team_settings').select(['id', 'team_name', 'logo_path', 'reject_reason_required']).where('id', '=', v.id);
      return tx ? lockedForUpdate(this.sql, select) : select;
    });
    const [row] = await statement.run<SettingsRow>(tx ?? this.db, { id: SETTINGS_ID });
    if (!row) return null;
    const rejectReasonRequired = row.reject_reason_required === true || Number(row.reject_reason_required) === 1;
    return Object.assign(new TeamSettingsEntity(), { id: Number(row.id), teamName: row.team_name, logoPath: row.logo_path, rejectReasonRequired });
  }

  async update(changes: Changes, tx: Sql): Promise<void> {
    const required = changes.rejectReasonRequired;
    const set = { team_name: changes.teamName, logo_path: changes.logoPath, reject_reason_required: required === undefined ? undefined : this.sql.bool(required) };
    const columns = (Object.keys(set) as (keyof typeof set)[]).filter((column) => set[column] !== undefined);
    if (!columns.length) return;
    const statement = this.sql.prepare(`settings.update ${columns.join(',')}`, (v: typeof set & { id: number }) =>
      this.sql.db
        .updateTable('team_settings')
        .set(Object.fromEntries(columns.map((column) => [column, v[column]])))
        .where('id', '=', v.id),
    );
    await statement.run(tx, { ...set, id: SETTINGS_ID });
  }
}
