import { lazy, Suspense, useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormError, cardClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { RANGES, useAgentResources, useAgentStatus, type AgentStatus, type Range } from './queries';
import { offlineClass, onlineClass, tableClass, tableWrapClass, toggleClass } from '../ui/table';
import styles from './agents.module.css';

// uPlot comes with the chart only: a chunk of its own, fetched when a chart is first shown.
const ResourceChart = lazy(() => import('./ResourceChart'));

export function AgentsPage() {
  const agents = useAgentStatus();
  const [params, setParams] = useSearchParams();
  const range = (RANGES as readonly string[]).includes(params.get('range') ?? '') ? (params.get('range') as Range) : '1h';
  const selected = params.get('agent') ?? agents.data?.items[0]?.name ?? null;
  const choose = (next: { agent?: string; range?: Range }) => {
    const merged = new URLSearchParams(params);
    if (next.agent) merged.set('agent', next.agent);
    if (next.range) {
      if (next.range === '1h') merged.delete('range');
      else merged.set('range', next.range);
    }
    setParams(merged, { replace: true });
  };
  return (
    <section className={styles.page} aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <p className={styles.lead}>
        Machines that host devices and connect to this relay with <code>svc agent</code>. <Link to="/devices">All devices</Link>
      </p>
      {agents.isPending ? (
        <Loading label="Loading agents…" />
      ) : agents.isError ? (
        <FormError error={agents.error} />
      ) : agents.data.items.length === 0 ? (
        <Empty>No agent has connected yet. Run `svc agent` on a machine with simulators or emulators (docs/agents.md).</Empty>
      ) : (
        <div className={styles.layout}>
          <AgentTable agents={agents.data.items} selected={selected} onSelect={(agent) => choose({ agent })} />
          {selected && <AgentCharts name={selected} range={range} onRange={(r) => choose({ range: r })} />}
        </div>
      )}
    </section>
  );
}

function AgentTable({ agents, selected, onSelect }: { agents: AgentStatus[]; selected: string | null; onSelect: (name: string) => void }) {
  return (
    <div className={tableWrapClass}>
      <table className={tableClass} aria-label="Agents">
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">State</th>
            <th scope="col">Version</th>
            <th scope="col">OS</th>
            <th scope="col">Host</th>
            <th scope="col">Devices</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.name} aria-selected={agent.name === selected} className={agent.name === selected ? styles.selected : undefined}>
              <th scope="row">
                <button type="button" className={styles.linkButton} onClick={() => onSelect(agent.name)} aria-pressed={agent.name === selected}>
                  {agent.name}
                </button>
              </th>
              <td>
                <span className={agent.online ? onlineClass : offlineClass}>{agent.online ? 'Online' : 'Offline'}</span>
              </td>
              <td>{agent.version ?? '—'}</td>
              <td>{agent.os ?? '—'}</td>
              <td>{agent.hostname ?? '—'}</td>
              <td>
                <Link to={`/devices?agent=${encodeURIComponent(agent.name)}`}>
                  {agent.devices} ({agent.booted} booted)
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AgentCharts({ name, range, onRange }: { name: string; range: Range; onRange: (range: Range) => void }) {
  const samples = useAgentResources(name, range);
  const series = useMemo(() => {
    const items = samples.data ?? [];
    return {
      times: items.map((s) => Date.parse(s.recorded_at) / 1000),
      cpu: items.map((s) => s.cpu_percent),
      mem: items.map((s) => s.mem_percent),
    };
  }, [samples.data]);
  const latest = (values: number[]) => (values.length ? `latest ${values[values.length - 1].toFixed(1)} %` : 'no samples');
  return (
    <section className={`${cardClass} ${styles.charts}`} aria-labelledby="charts-title">
      <div className={styles.chartsHead}>
        <h2 id="charts-title">{name}</h2>
        <div role="group" aria-label="Time range" className={styles.ranges}>
          {RANGES.map((r) => (
            <button key={r} type="button" className={toggleClass} aria-pressed={r === range} onClick={() => onRange(r)}>
              {r}
            </button>
          ))}
        </div>
      </div>
      {samples.isPending ? (
        <Loading label="Loading samples…" />
      ) : samples.isError ? (
        <FormError error={samples.error} />
      ) : series.times.length === 0 ? (
        <Empty>No samples in the last {range}. Agents send one a minute while connected; they are kept 30 days.</Empty>
      ) : (
        <Suspense fallback={<Loading label="Loading chart…" />}>
          {(
            [
              ['CPU', series.cpu, '--chart-cpu'],
              ['RAM', series.mem, '--chart-mem'],
            ] as const
          ).map(([title, values, colorVar]) => (
            <figure key={title} className={styles.figure} aria-label={`${title} of ${name}, last ${range}`}>
              <figcaption>
                {title} · {values.length} samples · {latest(values)}
              </figcaption>
              <ResourceChart title={title} times={series.times} values={values} colorVar={colorVar} />
            </figure>
          ))}
        </Suspense>
      )}
    </section>
  );
}
