import { authenticator } from 'otplib';

/** RFC 6238 as authenticator apps use it: SHA-1, 6 digits, 30-second steps. */
export const TOTP_STEP_MS = 30_000;
/** Codes one step early or late are accepted (a phone's clock drifts); two steps are not. */
export const TOTP_WINDOW = 1;

export function newTotpSecret(): string {
  return authenticator.generateSecret(20);
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(account: string, issuer: string, secret: string): string {
  return authenticator.keyuri(account, issuer, secret);
}

/**
 * The step of `code` within ±TOTP_WINDOW steps of `nowMs`, or null when it matches none. The
 * caller refuses a step at or before the last one used, so a code is good once.
 */
export function totpStep(code: string, secret: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const checker = authenticator.clone({ epoch: nowMs, window: TOTP_WINDOW });
  const delta = checker.checkDelta(code, secret);
  return delta === null ? null : Math.floor(nowMs / TOTP_STEP_MS) + delta;
}

/** The code for a moment (tests and the enrolment check). */
export function totpCode(secret: string, atMs: number): string {
  return authenticator.clone({ epoch: atMs }).generate(secret);
}
