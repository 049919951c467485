import type { BuildStatus } from '../../api/client';
import { GATE_FILTERS, type GateFilter } from '../../release-gate/GateBadge';

/** The status filter: the spec's four, or `untriaged` (no status; beyond the spec, docs/builds.md). */
export type StatusFilter = BuildStatus | 'untriaged';

/**
 * GET /builds query (spec §4, plus `search` and `status=untriaged`), kept in the URL so every view
 * of the inbox can be linked and reloaded. The search box edits `search`; `q` (version name only)
 * is still read from links that carry it.
 */
export interface BuildFilters {
  page: number;
  limit: number;
  q: string;
  search: string;
  platform: 'ios' | 'android' | '';
  status: StatusFilter | '';
  app_id: number | null;
  /** Beyond the spec: only builds flagged at upload (docs/builds.md "Flagged builds"). */
  flagged: boolean;
  /** Beyond the spec: provenance filters (docs/builds.md "Provenance"): the branch exactly, a pull request, a commit prefix. */
  branch: string;
  pull_request: number | null;
  commit: string;
  /** Beyond the spec: only builds whose release gate is in this state (docs/release-gate.md), filtered by the relay. */
  gate: GateFilter | '';
  sort: 'uploaded_at' | 'version_name' | 'status_label';
  dir: 'asc' | 'desc';
}

export const DEFAULT_FILTERS: BuildFilters = {
  page: 0,
  limit: 20,
  q: '',
  search: '',
  platform: '',
  status: '',
  app_id: null,
  flagged: false,
  branch: '',
  pull_request: null,
  commit: '',
  gate: '',
  sort: 'uploaded_at',
  dir: 'desc',
};

export const PAGE_SIZES = [20, 50, 100];
const STATUSES: StatusFilter[] = ['Backlog', 'In Progress', 'Done', 'Rejected', 'untriaged'];
const SORTS: BuildFilters['sort'][] = ['uploaded_at', 'version_name', 'status_label'];
/** The commit filter's form (the API's rule): 4 to 64 hex characters. */
export const COMMIT_FILTER = /^[0-9a-fA-F]{4,64}$/;
/** The largest pull request number the relay stores. */
export const MAX_PULL_REQUEST = 2147483647;

function whole(value: string | null, min: number, max: number): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

/** Reads the filters from the URL; anything unknown or out of range falls back to its default. */
export function filtersFromSearch(params: URLSearchParams): BuildFilters {
  const platform = params.get('platform');
  const status = params.get('status');
  const sort = params.get('sort');
  const dir = params.get('dir');
  return {
    page: whole(params.get('page'), 0, 1_000_000) ?? DEFAULT_FILTERS.page,
    limit: whole(params.get('limit'), 1, 100) ?? DEFAULT_FILTERS.limit,
    q: params.get('q') ?? '',
    search: params.get('search') ?? '',
    platform: platform === 'ios' || platform === 'android' ? platform : '',
    status: STATUSES.includes(status as StatusFilter) ? (status as StatusFilter) : '',
    app_id: whole(params.get('app_id'), 1, Number.MAX_SAFE_INTEGER),
    flagged: params.get('flagged') === 'true',
    branch: params.get('branch') ?? '',
    pull_request: whole(params.get('pull_request'), 1, MAX_PULL_REQUEST),
    commit: COMMIT_FILTER.test(params.get('commit') ?? '') ? params.get('commit')! : '',
    gate: (GATE_FILTERS as readonly string[]).includes(params.get('gate') ?? '') ? (params.get('gate') as GateFilter) : '',
    sort: SORTS.includes(sort as BuildFilters['sort']) ? (sort as BuildFilters['sort']) : DEFAULT_FILTERS.sort,
    dir: dir === 'asc' || dir === 'desc' ? dir : DEFAULT_FILTERS.dir,
  };
}

/** Writes only what differs from the defaults, so the plain inbox is just /builds. */
export function searchFromFilters(filters: BuildFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of Object.keys(DEFAULT_FILTERS) as (keyof BuildFilters)[]) {
    const value = filters[key];
    if (value === DEFAULT_FILTERS[key] || value === null || value === '') continue;
    params.set(key, String(value));
  }
  return params;
}

/** The API query for these filters (empty ones left out). */
export function apiQuery(filters: BuildFilters) {
  return {
    page: filters.page,
    limit: filters.limit,
    sort: filters.sort,
    dir: filters.dir,
    ...(filters.q.trim() ? { q: filters.q.trim() } : {}),
    ...(filters.search.trim() ? { search: filters.search.trim() } : {}),
    ...(filters.platform ? { platform: filters.platform } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.app_id ? { app_id: filters.app_id } : {}),
    ...(filters.flagged ? { flagged: 'true' as const } : {}),
    ...(filters.branch.trim() ? { branch: filters.branch.trim() } : {}),
    ...(filters.pull_request ? { pull_request: filters.pull_request } : {}),
    ...(filters.commit ? { commit: filters.commit } : {}),
    ...(filters.gate ? { gate: filters.gate } : {}),
  };
}

/** Whether any filter narrows the list (the empty state offers to clear them). */
export function filtering(filters: BuildFilters): boolean {
  return Boolean(filters.q || filters.search || filters.status || filters.platform || filters.app_id || filters.flagged || filters.branch || filters.pull_request || filters.commit || filters.gate);
}

/** A change of any filter other than the page goes back to the first page. */
export function withChange(filters: BuildFilters, change: Partial<BuildFilters>): BuildFilters {
  const next = { ...filters, ...change };
  if (!('page' in change)) next.page = 0;
  return next;
}
