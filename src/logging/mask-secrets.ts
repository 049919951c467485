/**
 * The relay's one redaction (docs/robustness.md "Secrets in outbound errors and uploader text"):
 * removes credentials from anything about to be logged or kept: PAT values, cookie values, bearer
 * and `token` credentials, the shapes of forge tokens (GitHub, GitLab), JWTs and private keys,
 * share-link tokens in paths, the OIDC callback's `code` and `state`, and `password`/`secret`/`token`
 * fields in JSON (the whole quoted value) or key=value form (up to the next separator).
 */
const SECRET_KEYS = '(?:password|currentPassword|newPassword|secret|token|pass|svc_token)';
/** GitHub (personal, OAuth, user-to-server, server-to-server, refresh, fine-grained) and GitLab token prefixes. */
const TOKEN_PREFIXES = '(?:gh[pousr]_|github_pat_|gl(?:pat|oas|dt|rt|ptt|ft|imt|agent|soat|cbt)-)';
/** The callback's query parameters that carry what the provider handed out for this one sign-in. */
const OIDC_CALLBACK_SECRETS = /([?&](?:code|state|session_state|id_token|access_token)=)[^&#\s"]*/g;

type Replacement = string | ((match: string, ...groups: string[]) => string);

const PATTERNS: [RegExp, Replacement][] = [
  [/svc_pat_[A-Za-z0-9_-]+/g, 'svc_pat_***'],
  [new RegExp(`\\b(${TOKEN_PREFIXES})[A-Za-z0-9_-]+`, 'g'), '$1***'],
  [/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, '-----BEGIN $1PRIVATE KEY-----***-----END $1PRIVATE KEY-----'],
  [/\beyJ[\w-]*\.eyJ[\w-]*\.[\w-]*/g, '***'],
  [/(svc_token=)[^;\s"&]+/gi, '$1***'],
  [/(bearer\s+)[^\s"]+/gi, '$1***'],
  // Gitea's and GitHub's `Authorization: token <value>`; only a value that looks like one (16+ characters, a digit), not prose.
  [/(\btoken\s+)(?=[\w.~+/=-]*\d)[\w.~+/=-]{16,}/gi, '$1***'],
  // Share links carry their token in the path (/install/<token>, /api/v1/share/<token>/download).
  [/(\/(?:install|share)\/)[0-9a-f]{64}/gi, '$1***'],
  // A refused OIDC callback is logged with its query string; openid-client names both states when they differ.
  [/\/auth\/oidc\/callback\?[^\s"]*/g, (url) => url.replace(OIDC_CALLBACK_SECRETS, '$1***')],
  [/(\b(?:state|nonce) mismatch, expected )[^,\s]+(, got: )[^\s"]*/g, '$1***$2***'],
  [new RegExp(`("${SECRET_KEYS}"\\s*:\\s*")(?:[^"\\\\]|\\\\.)*"`, 'gi'), '$1***"'],
  [new RegExp(`(\\b${SECRET_KEYS}\\s*[:=]\\s*)(?!\\*\\*\\*)[^"&,\\s}]+`, 'gi'), '$1***'],
];

/**
 * Every pattern's alternative in one case-insensitive test: a superset of what any of them matches,
 * so text it does not match holds nothing to redact. Most log lines (a request's `GET /path 200`)
 * hold none, and one test costs a tenth of the twelve replacements (issue 42).
 */
const ANY_PATTERN = new RegExp(PATTERNS.map(([pattern]) => `(?:${pattern.source})`).join('|'), 'i');
const LINE_BREAK = /[\r\n]/;

/** A configured credential shorter than this is not searched for by value (it would mask ordinary words); its shape still is. */
export const MIN_REDACTED_LENGTH = 6;

/**
 * `text` without the given credentials (the configured ones: forge tokens, App keys, webhook
 * secrets…, as written, JSON-escaped and URL-encoded) and without anything shaped like one.
 * Redact before cutting text short: a cut credential no longer matches.
 */
export function redactSecrets(text: string, credentials: Iterable<string | null | undefined> = []): string {
  let out = text;
  const forms = new Set<string>();
  for (const credential of credentials) {
    if (!credential || credential.length < MIN_REDACTED_LENGTH) continue;
    forms.add(credential).add(JSON.stringify(credential).slice(1, -1)).add(encodeURIComponent(credential));
  }
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join('***');
  if (!ANY_PATTERN.test(out)) return out;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement as string);
  return out;
}

/** A log line: redacted, and with its newlines escaped so a user-supplied value can never forge a second line. */
export function maskSecrets(text: string): string {
  const out = redactSecrets(text);
  return LINE_BREAK.test(out) ? out.replace(/\r/g, '\\r').replace(/\n/g, '\\n') : out;
}

/**
 * A connection URL (postgres://, redis://) with its password replaced by `***`, the user kept:
 * what the start-up summary shows of the database and Redis.
 */
export function maskUrlPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not parseable: show only the scheme, never what might be a password.
    return `${url.split(':')[0]}://***`;
  }
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
