/** `devices`: running automated device sessions through the WebDriver hub (docs/device-tests.md); Viewers cannot hold it. */
export const SCOPES = ['view', 'builds:write', 'agent', 'devices'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_PAT_SCOPES: Scope[] = ['view', 'builds:write'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
