/**
 * Removes credentials from anything about to be logged: PAT values, cookie values, bearer
 * credentials, share-link tokens in paths, and `password`/`secret`/`token` fields in JSON (the whole quoted value) or
 * key=value form (up to the next separator). Newlines are escaped so a user-supplied value can
 * never forge a second log line.
 */
const SECRET_KEYS = '(?:password|currentPassword|newPassword|secret|token|pass|svc_token)';
const PATTERNS: [RegExp, string][] = [
  [/svc_pat_[A-Za-z0-9_-]+/g, 'svc_pat_***'],
  [/(svc_token=)[^;\s"&]+/gi, '$1***'],
  [/(bearer\s+)[^\s"]+/gi, '$1***'],
  // Share links carry their token in the path (/install/<token>, /api/v1/share/<token>/download).
  [/(\/(?:install|share)\/)[0-9a-f]{64}/gi, '$1***'],
  [new RegExp(`("${SECRET_KEYS}"\\s*:\\s*")(?:[^"\\\\]|\\\\.)*"`, 'gi'), '$1***"'],
  [new RegExp(`(\\b${SECRET_KEYS}\\s*[:=]\\s*)(?!\\*\\*\\*)[^"&,\\s}]+`, 'gi'), '$1***'],
];

export function maskSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}
