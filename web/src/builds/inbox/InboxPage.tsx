import { useCurrentMember } from '../../app/RequireAuth';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { Build, BuildStatus } from '../../api/client';
import { useApps } from '../../apps/queries';
import { useShortcuts } from '../../app/ShortcutsDialog';
import { canWrite } from '../../auth/queries';
import { Button } from '../../ui/Button';
import { FormError, SelectField, TextField } from '../../ui/Field';
import { STATUSES, StatusBadge } from '../../ui/StatusBadge';
import { Empty, Loading, Spinner } from '../../ui/States';
import { PHONE_QUERY, useMediaQuery } from '../../ui/use-media-query';
import { apiQuery, COMMIT_FILTER, DEFAULT_FILTERS, filtering, filtersFromSearch, MAX_PULL_REQUEST, PAGE_SIZES, searchFromFilters, withChange, type BuildFilters } from './filters';
import { AppIcon } from '../../apps/AppIcon';
import { absoluteTime, relativeTime } from '../../ui/format';
import { sourceText, versionText } from '../format';
import { useBuilds, useUpdateBuild } from '../queries';
import { GateBadge, GATE_FILTERS, type GateFilter } from '../../release-gate/GateBadge';
import { useGateStates } from '../../release-gate/queries';
import { STATUS_KEYS, StatusMenu } from '../status/StatusMenu';
import { useStatusChange } from '../status/status-feedback';
import { SelectionBar, useBulkActions, useRowSelection, type RowSelection } from './SelectionBar';
import { droppedFiles, UploadPanel } from '../upload/UploadPanel';
import styles from '../builds.module.css';

/** The builds inbox: filters in the URL, keyboard triage, several builds at once, uploads, live updates. */
export function InboxPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFromSearch(params);
  const selectedId = Number(params.get('selected')) || null;
  const me = useCurrentMember();
  const writer = canWrite(me.role);
  const builds = useBuilds(filters);
  const update = useUpdateBuild();
  const navigate = useNavigate();
  const search = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [dragging, setDragging] = useState(false);

  const setFilters = (next: BuildFilters, selected: number | null = null) => {
    const search = searchFromFilters(next);
    if (selected) search.set('selected', String(selected));
    setParams(search, { replace: true });
  };
  // Two fields may commit before the URL change re-renders the page (the search and a filter typed
  // within 250 ms): each change applies to the previous one's result, not to this render's filters.
  const latest = useRef(filters);
  latest.current = filters;
  const change = (patch: Partial<BuildFilters>) => {
    latest.current = withChange(latest.current, patch);
    setFilters(latest.current);
  };
  // Shortcuts act on the selection at once, even before the URL change has re-rendered the page.
  // The URL changes in a transition (react-router), so a render in between (a toast, a refetch)
  // still shows the old selection: only a new URL selection replaces the one asked for.
  const focused = useRef<number | null>(selectedId);
  const shown = useRef<number | null>(selectedId);
  if (shown.current !== selectedId) focused.current = shown.current = selectedId;
  const select = (id: number | null) => {
    focused.current = id;
    setFilters(filters, id);
  };

  const page = builds.data?.items ?? [];
  const gates = useGateStates(page.map((b) => b.id));
  // The release-gate filter (docs/release-gate.md) is the relay's (`gate=` of GET /builds), like the others.
  const items = page;
  const selection = useRowSelection(items, JSON.stringify(apiQuery(filters)));
  const bulk = useBulkActions(selection);
  const current = () => {
    const index = items.findIndex((b) => b.id === focused.current);
    return { index, build: index >= 0 ? items[index] : null };
  };

  const { change: setStatus, dialog: rejectDialog } = useStatusChange(update, (build) => `${build.name} ${versionText(build.version_name, build.build_number)}`);
  /** After a status key the selection moves on to the next build still to triage (below, else from the top). */
  const nextUntriaged = (from: number) => {
    const open = (b: Build) => b.id !== items[from]?.id && isUntriaged(b.status_label);
    return items.slice(from + 1).find(open) ?? items.slice(0, from).find(open) ?? null;
  };

  // Focus follows a selection made by the keyboard (and the one a link opened with), never one made
  // by focusing a row: that row has focus already, and re-focusing it after a refetch would pull
  // focus back from wherever Tab has moved it since. This is the build whose link takes focus once
  // the URL selects it (null: none asked for).
  const focusTarget = useRef<number | null>(selectedId);
  const move = (step: number) => {
    if (items.length === 0) return;
    const { index } = current();
    const next = index < 0 ? (step > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, index + step));
    focusTarget.current = items[next].id;
    select(items[next].id);
  };
  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    Enter: () => {
      const { build } = current();
      if (build) navigate(`/builds/${build.id}`);
    },
    c: () => {
      const { build } = current();
      if (build) navigate(`/builds/${build.id}#comment`);
    },
    '/': () => search.current?.focus(),
    ...(writer
      ? {
          ...Object.fromEntries(
            Object.entries(STATUS_KEYS).map(([key, status]) => [
              key,
              () => {
                // With rows checked, the status keys act on all of them.
                if (selection.selected.length) return void bulk.setStatus(status);
                const { build, index } = current();
                if (!build) return;
                const next = nextUntriaged(index);
                setStatus(build, status, {
                  onSet: () => {
                    // Unless the reviewer moved on meanwhile (the reason dialog stays open while they type).
                    if (!next || focused.current !== build.id) return;
                    focusTarget.current = next.id;
                    select(next.id);
                  },
                });
              },
            ]),
          ),
          u: () => document.getElementById('upload-file')?.click(),
          x: () => {
            const { build } = current();
            if (build) selection.toggle(build.id);
          },
          X: () => {
            const { build } = current();
            if (build) selection.toggle(build.id, true);
          },
        }
      : {}),
  });

  // Keyboard selection moves focus to the selected row's link, so it is visible and announced.
  useEffect(() => {
    // Only the selection asked for: a render that still shows the previous one must not focus (and
    // so re-select) it.
    if (selectedId === null || focusTarget.current !== selectedId) return;
    const link = document.querySelector<HTMLAnchorElement>(`[data-build-link="${selectedId}"]`);
    if (!link) return;
    focusTarget.current = null;
    if (document.activeElement !== link && !isTyping()) link.focus({ preventScroll: false });
  }, [selectedId, builds.data]);

  const dropHandlers = writer
    ? {
        onDragOver: (event: DragEvent) => {
          if (!event.dataTransfer?.types.includes('Files')) return;
          event.preventDefault();
          setDragging(true);
        },
        onDragLeave: (event: DragEvent) => {
          if (event.currentTarget === event.target) setDragging(false);
        },
        onDrop: (event: DragEvent) => {
          event.preventDefault();
          setDragging(false);
          const dropped = droppedFiles(event);
          if (dropped.length) setFiles(dropped);
        },
      }
    : {};

  return (
    <section className={styles.inbox} aria-labelledby="inbox-title" {...dropHandlers}>
      {rejectDialog}
      <div className={styles.titleRow}>
        <h1 id="inbox-title">Builds</h1>
        {builds.data && (
          <span className={styles.count}>
            {builds.data.total} {builds.data.total === 1 ? 'build' : 'builds'}
          </span>
        )}
        {builds.isFetching && !builds.isPending && <Spinner label="Refreshing" />}
        <span className={styles.hintKeys}>
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open{writer && <> · <kbd>x</kbd> select · <kbd>1</kbd>–<kbd>4</kbd> status</>} · <kbd>?</kbd> all
        </span>
      </div>
      {writer && <UploadPanel files={files} onFiles={setFiles} dragging={dragging} />}
      <Filters filters={filters} onChange={change} searchRef={search}>
        <SelectField label="Release gate" hideLabel value={filters.gate} onChange={(e) => change({ gate: e.target.value as GateFilter | '' })}>
          <option value="">Any release gate</option>
          {GATE_FILTERS.map((g) => (
            <option key={g} value={g}>
              Release gate {g}
            </option>
          ))}
        </SelectField>
      </Filters>
      {writer && <SelectionBar selection={selection} actions={bulk} />}
      {builds.isPending ? (
        <Loading label="Loading builds…" />
      ) : builds.isError ? (
        <FormError error={builds.error} />
      ) : items.length === 0 ? (
        <Empty>
          {!filtering(filters) ? (
            writer ? (
              <>
                No builds yet. Drop an .apk or a simulator build here, or upload one from CI with the relay's CLI package:{' '}
                <code>svc upload app.apk</code>, with a token from <Link to="/tokens">Access tokens</Link>.
              </>
            ) : (
              <>No builds yet.</>
            )
          ) : (
            <>
              No build matches these filters. <Button size="small" onClick={() => setFilters(DEFAULT_FILTERS)}>Clear filters</Button>
            </>
          )}
        </Empty>
      ) : (
        <>
          <div className={styles.tableWrap}>
            <table className={styles.table}>
              <caption className="visually-hidden">Builds, {builds.data.total} in all</caption>
              <thead>
                <tr>
                  {writer && (
                    <th scope="col" className={styles.selectCell}>
                      <input
                        type="checkbox"
                        aria-label="Select all builds on this page"
                        checked={selection.allChecked}
                        onChange={selection.toggleAll}
                      />
                    </th>
                  )}
                  <th scope="col">App</th>
                  <th scope="col" className={styles.wideOnly}>Version</th>
                  <th scope="col">Status</th>
                  <th scope="col" className={styles.optional}>Label</th>
                  <th scope="col" className={styles.optional}>Uploader</th>
                  <th scope="col">Age</th>
                  <th scope="col" className={styles.optional}>Expires</th>
                </tr>
              </thead>
              <tbody>
                {items.map((build) => (
                  <BuildRow
                    key={build.id}
                    build={build}
                    selected={build.id === selectedId}
                    writer={writer}
                    selection={selection}
                    onSelect={() => select(build.id)}
                    onStatus={(status) => setStatus(build, status)}
                    gate={gates.data?.get(build.id) ?? null}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <Pagination filters={filters} total={builds.data.total} onChange={(patch) => setFilters({ ...filters, ...patch })} />
        </>
      )}
    </section>
  );
}

/** Not triaged yet: no status, or still in the Backlog. */
function isUntriaged(status: BuildStatus | null): boolean {
  return status === null || status === 'Backlog';
}

function isTyping() {
  const active = document.activeElement;
  return !!active && ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName);
}

function BuildRow({
  build,
  selected,
  writer,
  selection,
  onSelect,
  onStatus,
  gate,
}: {
  build: Build;
  selected: boolean;
  writer: boolean;
  selection: RowSelection;
  onSelect: () => void;
  onStatus: (status: BuildStatus | null) => void;
  gate: string | null;
}) {
  return (
    <tr className={selected ? styles.selectedRow : undefined} aria-current={selected ? 'true' : undefined} onClick={onSelect}>
      {writer && (
        <td className={styles.selectCell} onClick={(e) => e.stopPropagation()}>
          {/* Out of the tab order (one tab stop per row: its link); `x` toggles it from the keyboard. */}
          <input
            type="checkbox"
            tabIndex={-1}
            aria-label={`Select ${build.name} ${versionText(build.version_name, build.build_number)}`}
            checked={selection.isChecked(build.id)}
            onChange={() => undefined}
            onClick={(e) => selection.toggle(build.id, e.shiftKey)}
          />
        </td>
      )}
      <td>
        <div className={styles.appCell}>
          <AppIcon name={build.name} src={build.icon_url} />
          <div>
            <span className={styles.platform} title={build.platform === 'ios' ? 'iOS' : 'Android'}>
              {build.platform === 'ios' ? 'iOS' : 'Android'}
            </span>{' '}
            <Link to={`/builds/${build.id}`} data-build-link={build.id} className={styles.buildLink} onFocus={onSelect}>
              {build.name}
            </Link>
            <FlagBadge build={build} />
            <GateBadge state={gate} />
            <span className={styles.narrowOnly}>{versionText(build.version_name, build.build_number)}</span>
            <BuildSource build={build} />
          </div>
        </div>
      </td>
      <td className={`${styles.nowrap} ${styles.wideOnly}`}>{versionText(build.version_name, build.build_number)}</td>
      <td onClick={(e) => e.stopPropagation()}>
        {writer ? (
          <StatusMenu status={build.status_label} onChange={onStatus} label={`Status of ${build.name} ${build.version_name ?? ''}`} inRow />
        ) : (
          <StatusBadge status={build.status_label} />
        )}
      </td>
      <td className={styles.optional}>{build.version_label ? <span className={styles.label}>{build.version_label}</span> : <span className={styles.muted}>–</span>}</td>
      <td className={styles.optional}>{build.uploaded_by ?? <span className={styles.muted}>–</span>}</td>
      <td className={styles.nowrap}>
        <time dateTime={build.uploaded_at} title={absoluteTime(build.uploaded_at)}>
          {relativeTime(build.uploaded_at)}
        </time>
      </td>
      <td className={`${styles.optional} ${styles.nowrap}`}>
        {build.delete_after ? (
          <time dateTime={build.delete_after} title={absoluteTime(build.delete_after)} className={styles.expiry}>
            {relativeTime(build.delete_after)}
          </time>
        ) : (
          <span className={styles.muted}>–</span>
        )}
      </td>
    </tr>
  );
}

/**
 * The relay's build number and where the build came from, under its name: two uploads of the same
 * version and build number differ by both (issue 40).
 */
function BuildSource({ build }: { build: Build }) {
  const source = sourceText(build.provenance);
  return (
    <span className={styles.source}>
      <span aria-label={`Build number ${build.id}`}>#{build.id}</span>
      {source && (
        <>
          {' · '}
          <span className={styles.sourceName} title={build.provenance?.commit ?? undefined}>
            {source}
          </span>
        </>
      )}
    </span>
  );
}

/** "⚑ 2" when the build was flagged at upload against the one before it; the reasons in its title. */
function FlagBadge({ build }: { build: Build }) {
  const count = build.flags.length;
  if (!count) return null;
  const reasons = build.flags.map((f) => f.reason).join('\n');
  return (
    <>
      {' '}
      <span className={styles.flagBadge} title={reasons} role="img" aria-label={`${count} ${count === 1 ? 'flag' : 'flags'}: ${build.flags.map((f) => f.reason).join('; ')}`}>
        ⚑ {count}
      </span>
    </>
  );
}

function Filters({
  filters,
  onChange,
  searchRef,
  children,
}: {
  filters: BuildFilters;
  onChange: (patch: Partial<BuildFilters>) => void;
  searchRef: React.RefObject<HTMLInputElement | null>;
  children: React.ReactNode;
}) {
  const apps = useApps();
  const [term, setTerm] = useState(filters.search);
  useEffect(() => setTerm(filters.search), [filters.search]);
  // Search as you type, without a request per key.
  useEffect(() => {
    if (term === filters.search) return;
    const timer = setTimeout(() => onChange({ search: term }), 250);
    return () => clearTimeout(timer);
  });
  const phone = useMediaQuery(PHONE_QUERY);
  const active = [filters.app_id, filters.status, filters.platform, filters.flagged, filters.branch, filters.pull_request, filters.commit, filters.gate].filter(Boolean).length;
  const more = (
    <>
      <SelectField label="App" hideLabel value={filters.app_id ?? ''} onChange={(e) => onChange({ app_id: e.target.value ? Number(e.target.value) : null })}>
        <option value="">All apps</option>
        {apps.data?.items.map((app) => (
          <option key={app.id} value={app.id}>
            {app.name}
          </option>
        ))}
      </SelectField>
      <SelectField label="Status" hideLabel value={filters.status} onChange={(e) => onChange({ status: e.target.value as BuildFilters['status'] })}>
        <option value="">Any status</option>
        <option value="untriaged">Untriaged (no status)</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </SelectField>
      <SelectField label="Platform" hideLabel value={filters.platform} onChange={(e) => onChange({ platform: e.target.value as BuildFilters['platform'] })}>
        <option value="">Any platform</option>
        <option value="ios">iOS</option>
        <option value="android">Android</option>
      </SelectField>
      <label className={styles.flaggedFilter}>
        <input type="checkbox" checked={filters.flagged} onChange={(e) => onChange({ flagged: e.target.checked })} /> Flagged only
      </label>
      <SelectField
        label="Sort"
        hideLabel
        value={`${filters.sort}:${filters.dir}`}
        onChange={(e) => {
          const [sort, dir] = e.target.value.split(':') as [BuildFilters['sort'], BuildFilters['dir']];
          onChange({ sort, dir });
        }}
      >
        <option value="uploaded_at:desc">Newest first</option>
        <option value="uploaded_at:asc">Oldest first</option>
        <option value="version_name:desc">Version, high to low</option>
        <option value="version_name:asc">Version, low to high</option>
        <option value="status_label:asc">Status, A to Z</option>
        <option value="status_label:desc">Status, Z to A</option>
      </SelectField>
      <DeferredField label="Branch" placeholder="Branch (exact)" value={filters.branch} maxLength={255} onCommit={(branch) => onChange({ branch })} />
      <DeferredField
        label="Pull request"
        placeholder="PR #"
        inputMode="numeric"
        value={filters.pull_request ? String(filters.pull_request) : ''}
        maxLength={11}
        accept={(text) => text === '' || (/^#?\d+$/.test(text) && Number(text.replace('#', '')) >= 1 && Number(text.replace('#', '')) <= MAX_PULL_REQUEST)}
        onCommit={(text) => onChange({ pull_request: text ? Number(text.replace('#', '')) : null })}
      />
      <DeferredField
        label="Commit"
        placeholder="Commit SHA"
        value={filters.commit}
        maxLength={64}
        accept={(text) => text === '' || COMMIT_FILTER.test(text)}
        onCommit={(commit) => onChange({ commit })}
      />
      {children}
    </>
  );
  return (
    <form className={styles.filters} role="search" aria-label="Filter builds" onSubmit={(e) => e.preventDefault()}>
      <TextField
        ref={searchRef}
        label="Search builds"
        type="search"
        placeholder="App, version, label, branch, #PR, commit (press /)"
        value={term}
        maxLength={100}
        onChange={(e) => setTerm(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
        }}
        hideLabel
        aria-keyshortcuts="/"
      />
      {phone ? (
        // On a phone the first build comes first: the other filters fold under one line that counts the ones in use.
        <details className={styles.moreFilters}>
          <summary>Filters{active ? ` (${active} in use)` : ''}</summary>
          <div className={styles.filters}>{more}</div>
        </details>
      ) : (
        more
      )}
    </form>
  );
}

/**
 * A text filter applied as you type (250 ms after the last key, like the search), and only once
 * it is a value the API takes: a half-typed commit or `#` is not sent (its field says so).
 */
function DeferredField({
  label,
  value,
  onCommit,
  accept = () => true,
  ...input
}: {
  label: string;
  value: string;
  onCommit: (value: string) => void;
  accept?: (text: string) => boolean;
  placeholder: string;
  maxLength: number;
  inputMode?: 'numeric';
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const trimmed = text.trim();
  const valid = accept(trimmed);
  useEffect(() => {
    if (trimmed === value || !valid) return;
    const timer = setTimeout(() => onCommit(trimmed), 250);
    return () => clearTimeout(timer);
  });
  return (
    <TextField
      label={label}
      hideLabel
      type="search"
      className={styles.provenanceFilter}
      value={text}
      aria-invalid={valid ? undefined : true}
      onChange={(e) => setText(e.target.value)}
      {...input}
    />
  );
}

function Pagination({
  filters,
  total,
  onChange,
}: {
  filters: BuildFilters;
  total: number;
  onChange: (patch: Partial<BuildFilters>) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / filters.limit));
  const first = filters.page * filters.limit + 1;
  const last = Math.min(total, (filters.page + 1) * filters.limit);
  return (
    <nav className={styles.pagination} aria-label="Pages">
      <span>
        {first}–{last} of {total}
      </span>
      <Button size="small" disabled={filters.page === 0} onClick={() => onChange({ page: filters.page - 1 })}>
        Previous
      </Button>
      <span aria-current="page">
        Page {filters.page + 1} of {pages}
      </span>
      <Button size="small" disabled={filters.page + 1 >= pages} onClick={() => onChange({ page: filters.page + 1 })}>
        Next
      </Button>
      <SelectField label="Per page" value={filters.limit} onChange={(e) => onChange({ limit: Number(e.target.value), page: 0 })}>
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </SelectField>
    </nav>
  );
}
