export const SCOPES = ['view', 'builds:write', 'agent'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_PAT_SCOPES: Scope[] = ['view', 'builds:write'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
