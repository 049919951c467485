/**
 * Removes credentials from anything about to be logged: PAT values, cookie values, and
 * `password`/`secret`/`token` fields in key=value or JSON form. Newlines are escaped so a
 * user-supplied value can never forge a second log line.
 */
const PATTERNS: [RegExp, string][] = [
  [/svc_pat_[A-Za-z0-9_-]+/g, 'svc_pat_***'],
  [/(svc_token=)[^;\s"]+/gi, '$1***'],
  [/(bearer\s+)[^\s"]+/gi, '$1***'],
  [/("?(?:password|currentPassword|newPassword|secret|token|pass)"?\s*[:=]\s*"?)[^"&,\s}]+/gi, '$1***'],
];

export function maskSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}
