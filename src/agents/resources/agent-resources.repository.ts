import { Injectable } from '@nestjs/common';
import { inLists } from '../../database/in-lists';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { changedRows } from '../../database/query-builder/rows';
import { AgentResourceSampleEntity } from './agent-resource-sample.entity';
import { SqlExecutor } from '../../database/sql-executor';

export type NewSample = Omit<AgentResourceSampleEntity, 'id'>;

interface SampleRow {
  id: number | string;
  agent_name: string;
  minute: number | string;
  recorded_at: number | string;
  cpu_percent: number | string;
  mem_percent: number | string;
}

/** Per sample: its agent, minute, time and readings, bound by index (`a0`, `m0`, … for the first). */
type SampleValues = Record<string, string | number>;

/** Resource samples; every read goes through the (agent_name, minute) unique index. */
@Injectable()
export class AgentResourcesRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Stores each sample as its agent's sample of that minute, replacing an earlier one of the same minute. */
  async saveLatestOfMinute(samples: NewSample[]): Promise<void> {
    // Five values a sample: well under both databases' limit of bound values per statement.
    for (const list of inLists(samples)) {
      const statement = this.sql.prepare(`agentResources.upsert ${list.length}`, (v: SampleValues) =>
        this.sql.db
          .insertInto('agent_resource_samples')
          .values(list.map((_, i) => ({ agent_name: v[`a${i}`], minute: v[`m${i}`], recorded_at: v[`r${i}`], cpu_percent: v[`c${i}`], mem_percent: v[`p${i}`] })) as never)
          .onConflict((oc) =>
            oc.columns(['agent_name', 'minute']).doUpdateSet((eb) => ({
              recorded_at: eb.ref('excluded.recorded_at'),
              cpu_percent: eb.ref('excluded.cpu_percent'),
              mem_percent: eb.ref('excluded.mem_percent'),
            })),
          ),
      );
      const values: SampleValues = {};
      list.forEach((s, i) => Object.assign(values, { [`a${i}`]: s.agentName, [`m${i}`]: s.minute.getTime(), [`r${i}`]: s.recordedAt.getTime(), [`c${i}`]: s.cpuPercent, [`p${i}`]: s.memPercent }));
      await statement.run(this.db, values);
    }
  }

  async agentNames(): Promise<string[]> {
    const statement = this.sql.prepare('agentResources.names', () => this.sql.db.selectFrom('agent_resource_samples').select('agent_name').distinct().orderBy('agent_name'));
    return (await statement.run<{ agent_name: string }>(this.db, {})).map((row) => row.agent_name);
  }

  async since(agentName: string, from: Date): Promise<AgentResourceSampleEntity[]> {
    const statement = this.sql.prepare('agentResources.since', (v: { agentName: string; from: number }) =>
      this.sql.db
        .selectFrom('agent_resource_samples')
        .select(['id', 'agent_name', 'minute', 'recorded_at', 'cpu_percent', 'mem_percent'])
        .where('agent_name', '=', v.agentName)
        .where('minute', '>=', v.from)
        .orderBy('minute'),
    );
    const rows = await statement.run<SampleRow>(this.db, { agentName, from: from.getTime() });
    return rows.map((row) =>
      Object.assign(new AgentResourceSampleEntity(), {
        id: Number(row.id),
        agentName: row.agent_name,
        minute: new Date(Number(row.minute)),
        recordedAt: new Date(Number(row.recorded_at)),
        cpuPercent: Number(row.cpu_percent),
        memPercent: Number(row.mem_percent),
      }),
    );
  }

  async deleteBefore(cutoff: Date): Promise<number> {
    const statement = this.sql.prepare('agentResources.deleteBefore', (v: { cutoff: number }) =>
      this.sql.db.deleteFrom('agent_resource_samples').where('minute', '<', v.cutoff).returning('id'),
    );
    return (await changedRows(statement, this.db, { cutoff: cutoff.getTime() })).length;
  }
}
