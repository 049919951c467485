/** An app's comparison rules (GET/PUT /apps/:id/compare-settings); stored as JSON, absent = DEFAULT_COMPARE_SETTINGS. */
export interface CompareSettings {
  /** A build that grew by at least this percentage of the earlier one's file size is flagged. */
  size_jump_percent: number;
  /** …or by at least this many bytes (null: no byte threshold). */
  size_jump_bytes: number | null;
  /** Every added permission is flagged; when false, only those on the watch-list. */
  flag_every_new_permission: boolean;
  /** Permissions whose addition is always flagged, and marked as watched in the flag. */
  watched_permissions: string[];
}

export const DEFAULT_COMPARE_SETTINGS: CompareSettings = {
  size_jump_percent: 10,
  size_jump_bytes: null,
  flag_every_new_permission: true,
  watched_permissions: [],
};

/** Stored settings over the defaults (a key added later takes its default in older rows). */
export function parseCompareSettings(data: string | null): CompareSettings {
  if (!data) return { ...DEFAULT_COMPARE_SETTINGS };
  return { ...DEFAULT_COMPARE_SETTINGS, ...(JSON.parse(data) as Partial<CompareSettings>) };
}
