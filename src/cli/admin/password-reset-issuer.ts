import type { INestApplicationContext } from '@nestjs/common';
import { randomBase64Url } from '../../common/crypto/secret-token';
import { SessionsService } from '../../auth/sessions.service';
import { TokensService } from '../../tokens/tokens.service';
import type { UserEntity } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';

/**
 * What `svc admin reset-password` needs from password resets (spec §4 "Password reset"): create a
 * reset for a member (2 hours, single use, earlier links invalidated) and return its token and link.
 * The team branch's PasswordResetService has exactly this method (`sendReset`); once merged,
 * `registeredIssuer` below should return `app.get(PasswordResetService, { strict: false })`.
 */
export interface PasswordResetIssuer {
  sendReset(userId: number): Promise<{ token: string; resetUrl: string | null }>;
}

export const PASSWORD_RESET_ISSUER = 'PasswordResetIssuer';

export type ResetOutcome =
  | { kind: 'link'; resetUrl: string }
  | { kind: 'temporary-password'; password: string };

/**
 * A reset link through the registered issuer; the link falls back to `<relay-url>/reset-password?token=…`
 * (spec) with localhost as the relay URL, which is where this command runs. Without an issuer
 * (password resets not in this build), the member gets a one-time temporary password instead,
 * with the same effects a reset has: every session ended and every PAT revoked.
 */
export async function resetPassword(app: INestApplicationContext, user: UserEntity, localRelayUrl: string): Promise<ResetOutcome> {
  const issuer = registeredIssuer(app);
  if (issuer) {
    const { token, resetUrl } = await issuer.sendReset(user.id);
    return { kind: 'link', resetUrl: resetUrl ?? `${localRelayUrl}/reset-password?token=${encodeURIComponent(token)}` };
  }
  const password = randomBase64Url(18);
  await app.get(UsersService, { strict: false }).setPassword(user.id, password);
  await app.get(SessionsService, { strict: false }).endAllFor(user.id);
  await app.get(TokensService, { strict: false }).revokeAllFor(user.id, 'password_reset');
  return { kind: 'temporary-password', password };
}

function registeredIssuer(app: INestApplicationContext): PasswordResetIssuer | null {
  try {
    return app.get<PasswordResetIssuer>(PASSWORD_RESET_ISSUER, { strict: false });
  } catch {
    return null;
  }
}
