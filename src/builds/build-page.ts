import type { Platform } from '../app-catalogue/platform';
import type { BuildEntity, BuildGateState } from './build.entity';
import type { BuildStatus } from './build-status';
import type { BuildProvenanceEntity } from './provenance/build-provenance.entity';

/**
 * What the builds list is asked and what it answers, below the statements that build it
 * (build-list.repository.ts, build-search.repository.ts), the repository that runs them and the
 * mapper and services that use the rows.
 */

export type BuildSortField = 'uploaded_at' | 'version_name' | 'status_label';
/** A status filter of the list: one of the four, or `untriaged` (no status set). */
export type ListedStatus = BuildStatus | 'untriaged';

export interface BuildPageQuery {
  page: number;
  limit: number;
  q?: string;
  /** `search`'s terms, each a substring of some field (build-search.repository.ts). */
  searchTerms?: string[];
  platform?: Platform;
  status?: ListedStatus;
  appId?: number;
  /** Beyond the spec: only builds with a build_flags row. */
  flagged?: boolean;
  /** Beyond the spec: builds whose provenance names this branch (exact). */
  branch?: string;
  /** Beyond the spec: builds whose provenance commit starts with this (lower-case hex). */
  commit?: string;
  /** Beyond the spec: builds whose provenance names this pull request. */
  pullRequest?: number;
  /** Beyond the spec: builds whose release gate is in this state (builds.gate_state, kept by the release-gate module). */
  gate?: BuildGateState;
  sort: BuildSortField;
  dir: 'asc' | 'desc';
}

/**
 * The summary of an app's latest build that GET /apps shows, with the app's build count and
 * whether any of its builds has a launcher icon (GET /apps/:id/icon answers 404 otherwise).
 */
export type LatestBuild = Pick<BuildEntity, 'id' | 'appId' | 'versionName' | 'buildNumber' | 'statusLabel' | 'uploadedAt'> & {
  buildCount: number;
  hasIcon: boolean;
};

/**
 * The build fields GET /builds and GET /builds/:id show: not the stored file's name and size,
 * which a page would read 20 times for nothing.
 */
export type ShownBuild = Omit<BuildEntity, 'app' | 'fileName' | 'originalName' | 'fileSize' | 'gateState'>;

/**
 * Who uploaded a build (the author of its first status-history entry): the live account while it
 * exists (a renamed member shows the new name), else the name and e-mail the entry kept; `id` is
 * null once the account is deleted.
 */
export interface Uploader {
  id: number | null;
  displayName: string | null;
  email: string;
}

/**
 * A build as GET /builds and GET /builds/:id show it: beyond the spec's fields, who uploaded it
 * (null for builds older than the status history), whether it has an icon (docs/builds.md
 * "Uploader and icon in the build"), its flags and its provenance.
 */
export interface ListedBuild {
  build: ShownBuild;
  uploader: Uploader | null;
  hasIcon: boolean;
  /** The flags stored at upload (JSON text of ComparisonFlag[]), or null when it has none. */
  flags: string | null;
  /** Where the build came from, as its upload said; null when it said nothing. */
  provenance: BuildProvenanceEntity | null;
}
