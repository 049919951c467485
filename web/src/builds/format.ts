/** How a build is named on a row: its version and where it came from. */
/** "1.4.0 (42)", or what is known of it. */
export function versionText(version: string | null, buildNumber: string | null): string {
  if (version && buildNumber) return `${version} (${buildNumber})`;
  return version ?? (buildNumber ? `build ${buildNumber}` : 'unknown version');
}

/**
 * Where a build came from, as a row shows it: its branch, its pull request (`PR #17`) or both
 * (`feature/login · PR #17`); the commit's first 7 characters when it gave only that; null when none.
 */
export function sourceText(provenance: { branch: string | null; pull_request: number | null; commit: string | null } | null): string | null {
  if (!provenance) return null;
  const parts = [provenance.branch, provenance.pull_request === null ? null : `PR #${provenance.pull_request}`].filter(Boolean);
  if (parts.length) return parts.join(' · ');
  return provenance.commit ? provenance.commit.slice(0, 7) : null;
}
