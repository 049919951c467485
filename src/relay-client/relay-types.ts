/** Shapes of spec §2/§4 as the CLI reads them (the relay is the source of truth; these are for printing). */
export const BUILD_STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];
export const BUILD_PLATFORMS = ['ios', 'android'] as const;

/** POST /builds response. */
export interface BuildSummary {
  id: number;
  app_id: number;
  name: string;
  version_name: string;
  build_number: string;
  bundle_id: string;
  status_label: BuildStatus | null;
  platform: 'ios' | 'android';
  uploaded_at: string;
}

/** Where a build came from, as its upload said (docs/builds.md "Provenance"). */
export interface BuildProvenance {
  commit: string | null;
  branch: string | null;
  repository: string | null;
  pull_request: number | null;
  ci_url: string | null;
  changelog: string | null;
}

/** GET /builds item, GET /builds/:id (with some of the fields beyond the spec). */
export interface Build extends BuildSummary {
  version_label: string | null;
  completed_at: string | null;
  delete_after: string | null;
  /** Beyond the spec: where the build came from (docs/builds.md "Provenance"); null when its upload said nothing. */
  provenance?: BuildProvenance | null;
  flags?: { reason: string }[];
}

export interface BuildPage {
  items: Build[];
  total: number;
}

/** GET /apps item. */
export interface AppListItem {
  id: number;
  name: string;
  bundle_id_key: string;
  platform: 'ios' | 'android' | 'both';
  created_at: string;
  latest_build_id?: number | null;
  version_name?: string | null;
  build_number?: string | null;
  status_label?: BuildStatus | null;
  latest_uploaded_at?: string | null;
}
