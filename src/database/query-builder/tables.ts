import type { Generated } from 'kysely';

/*
 * The tables the hand-written statements read and write, as Kysely sees them (the migrations own
 * the schema; these types only check the statements' names, and the features' own types (statuses,
 * platforms, roles) stay with the features). Only the tables the statements use.
 */

/**
 * Integers (ids, counts, epoch milliseconds as timestamp.column.ts stores them) are `number` here;
 * PostgreSQL gives bigint columns and COUNT(*) back as strings, so reads convert with Number().
 */
type Id = number;
type Epoch = number;

export interface BuildsTable {
  id: Generated<Id>;
  app_id: Id;
  name: string;
  version_name: string | null;
  build_number: string | null;
  version_label: string | null;
  status_label: string | null;
  platform: string;
  bundle_id: string;
  file_name: string;
  original_name: string;
  file_size: Id;
  uploaded_at: Epoch;
  completed_at: Epoch | null;
  delete_after: Epoch | null;
  /** PostgreSQL only (migration BuildSearch; SQLite keeps it in `build_search`): set by a trigger, never written. */
  search_text: Generated<string | null>;
}

/** SQLite only (migration BuildSearch): the FTS5 trigram table of the builds' search text, rowid = build id. */
export interface BuildSearchTable {
  rowid: Id;
  search_text: string;
  /** FTS5's hidden column named after the table: the left side of MATCH. */
  build_search: string;
}

/** SQLite only: FTS5's own content table of `build_search` (id = its rowid, c0 = search_text), read by rowid where the FTS5 table would search. */
export interface BuildSearchContentTable {
  id: Id;
  c0: string;
}

/** The flags of a build's comparison with the one before it, a row only for a build that has some (migration BuildFlags). */
export interface BuildFlagsTable {
  build_id: Id;
  compared_with_id: Id;
  flag_count: number;
  flags: string;
}

/** Where a build came from (issue 25), a row only for a build uploaded with any (migration BuildProvenance). */
export interface BuildProvenanceTable {
  build_id: Id;
  commit_sha: string | null;
  branch: string | null;
  repository: string | null;
  pull_request: number | null;
  ci_url: string | null;
  changelog: string | null;
}

export interface BuildContentsTable {
  build_id: Id;
  format: number;
  data: string;
  computed_at: Epoch;
}

export interface BuildStatusChangesTable {
  id: Generated<Id>;
  build_id: Id;
  from_status: string | null;
  to_status: string | null;
  changed_by_id: Id | null;
  changed_by_display_name: string | null;
  changed_by_email: string;
  changed_at: Epoch;
}

export interface BuildIconsTable {
  build_id: Id;
  mime: string;
  sha256: string;
  data_base64: string;
}

/** Builds per app, platform and status ('' for none), kept by triggers (docs/database.md "Maintained counts"). */
export interface BuildCountsTable {
  app_id: Id;
  platform: string;
  status_key: string;
  n: Id;
}

/** Builds per (upload day, app, platform, status): migration 1700000027000, read by a deep page's seek. */
export interface BuildDayCountsTable {
  day: Id;
  app_id: Id;
  platform: string;
  status_key: string;
  n: Id;
}

/** Builds per UTC upload day, kept by triggers on builds (migration BuildDayTotals). */
export interface BuildDayTotalsTable {
  day: Id;
  n: Id;
}

/** Builds per provenance branch, kept by triggers on build_provenance (migration BuildBranchCounts). */
export interface BuildBranchCountsTable {
  branch: string;
  n: Id;
}

/** One row (id 1): bumped by triggers on every write that can change a `q` or `search` total (migration BuildListChanges). */
export interface BuildListChangesTable {
  id: number;
  n: Id;
}

export interface UsersTable {
  id: Generated<Id>;
  email: string;
  password_hash: string;
  display_name: string | null;
  role: string;
  avatar_path: string | null;
  /** A boolean on PostgreSQL, 1 or 0 on SQLite. */
  active: boolean | number;
  created_at: Epoch;
}

export interface SessionsTable {
  id: Generated<Id>;
  user_id: Id;
  token_hash: string;
  created_at: Epoch;
  expires_at: Epoch;
  sign_in_method: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<Id>;
  user_id: Id;
  name: string;
  scope: string;
  token_hash: string;
  created_at: Epoch;
  last_used_at: Epoch;
  expires_at: Epoch | null;
}

export interface CommentsTable {
  id: Generated<Id>;
  build_id: Id;
  author_id: Id | null;
  author_display_name: string | null;
  author_email: string;
  body: string;
  created_at: Epoch;
}

export interface CommentAttachmentsTable {
  id: Generated<Id>;
  comment_id: Id;
  file_path: string;
  mime: string;
  size: Id;
}

export interface AppsTable {
  id: Generated<Id>;
  name: string;
  bundle_id_key: string;
  platform: string;
  created_at: Epoch;
}

export interface AppCompareSettingsTable {
  app_id: Id;
  data: string;
}

/** "Report issue": the outbox that files each issue and the issue's link and status (migration TrackerIssues). */
export interface TrackerIssuesTable {
  id: Generated<Id>;
  build_id: Id;
  tracker: string;
  project: string;
  title: string;
  description: string;
  recording_id: Id | null;
  session_id: string | null;
  from_ms: number | null;
  to_ms: number | null;
  reported_by: Id | null;
  status: string;
  attempts: number;
  next_attempt_at: Epoch;
  last_error: string | null;
  external_id: string | null;
  external_url: string | null;
  external_status: string | null;
  closed_at: Epoch | null;
  build_status_at_close: string | null;
  created_at: Epoch;
  updated_at: Epoch;
}

export interface Database {
  apps: AppsTable;
  app_compare_settings: AppCompareSettingsTable;
  builds: BuildsTable;
  build_status_changes: BuildStatusChangesTable;
  build_icons: BuildIconsTable;
  build_counts: BuildCountsTable;
  build_day_counts: BuildDayCountsTable;
  build_branch_counts: BuildBranchCountsTable;
  build_day_totals: BuildDayTotalsTable;
  build_list_changes: BuildListChangesTable;
  build_search: BuildSearchTable;
  build_search_content: BuildSearchContentTable;
  build_flags: BuildFlagsTable;
  build_provenance: BuildProvenanceTable;
  build_contents: BuildContentsTable;
  users: UsersTable;
  sessions: SessionsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  comments: CommentsTable;
  comment_attachments: CommentAttachmentsTable;
  tracker_issues: TrackerIssuesTable;
}
