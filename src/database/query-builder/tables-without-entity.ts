import type { Generated } from 'kysely';

/*
 * Tables and columns the migrations create that no TypeORM entity declares, so
 * scripts/generate-tables.ts cannot read them: the full-text table and its shadow (SQLite), the
 * counts kept by triggers, the build flags. Typed by hand here until their module (builds) declares
 * them as entities; everything an entity declares is generated into tables.ts.
 */

type Id = number;

/** Columns of an entity's table that the entity does not declare (merged into its generated type). */
export interface ColumnsWithoutEntity {
  builds: {
    /** PostgreSQL only (migration BuildSearch; SQLite keeps it in `build_search`): set by a trigger, never written. */
    search_text: Generated<string | null>;
  };
}

/** The tables of ColumnsWithoutEntity, for the generator (it reads this list, not the types). */
export const TABLES_WITH_COLUMNS_WITHOUT_ENTITY: (keyof ColumnsWithoutEntity)[] = ['builds'];

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

export interface TablesWithoutEntity {
  build_search: BuildSearchTable;
  build_search_content: BuildSearchContentTable;
  build_flags: BuildFlagsTable;
  build_counts: BuildCountsTable;
  build_day_counts: BuildDayCountsTable;
  build_day_totals: BuildDayTotalsTable;
  build_branch_counts: BuildBranchCountsTable;
  build_list_changes: BuildListChangesTable;
}
