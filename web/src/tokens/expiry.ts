/**
 * The dashboard's expiry rule (spec §4 Tokens): a whole number of days from 1 to 365, or none.
 * The API itself accepts any count >= 0 (0 = none); this rule is only the form's.
 */
export const MAX_EXPIRY_DAYS = 365;

export function expiryError(days: string): string | null {
  if (!/^\d+$/.test(days.trim())) return 'Expiry must be a whole number of days from 1 to 365.';
  const n = Number(days);
  return n >= 1 && n <= MAX_EXPIRY_DAYS ? null : 'Expiry must be from 1 to 365 days (or choose no expiry).';
}

export const SCOPES = ['view', 'builds:write', 'agent', 'devices'] as const;
export type Scope = (typeof SCOPES)[number];

/** Ready-to-paste CI lines for a new token: the CLI, and curl for runners without it. */
export function ciSnippet(origin: string, token: string, scopes: readonly Scope[]): string {
  const lines = [`export SVC_URL=${origin}`, `export SVC_TOKEN=${token}`];
  if (scopes.includes('builds:write')) {
    lines.push(
      '',
      '# with the svc CLI',
      'svc upload app-release.apk --label "$BRANCH"',
      '',
      '# or with curl',
      'curl -fsS -H "Authorization: Bearer $SVC_TOKEN" -F file=@app-release.apk -F label="$BRANCH" "$SVC_URL/api/v1/builds"',
    );
  }
  if (scopes.includes('devices')) lines.push('', '# Appium tests on the relay’s devices (WebDriver hub)', 'export APPIUM_HUB="$SVC_URL/wd/hub"');
  if (scopes.includes('agent')) lines.push('', '# a device host', 'svc agent --relay "$SVC_URL" --token "$SVC_TOKEN"');
  return lines.join('\n');
}
