import type { INestApplicationContext } from '@nestjs/common';
import { CLI_ACTOR } from '../../audit/audit-actor';
import { PasswordResetService } from '../../password-reset/password-reset.service';
import type { UserEntity } from '../../users/user.entity';

/**
 * `svc admin reset-password`: the same reset link POST /team/members/:id/send-reset creates
 * (2 hours, single use, earlier links invalidated). Using it on the relay signs the member out
 * everywhere and revokes their PATs. Without a public URL the link points at the local relay.
 */
export async function resetLink(app: INestApplicationContext, user: UserEntity, localRelayUrl: string): Promise<string> {
  const { token, resetUrl } = await app.get(PasswordResetService, { strict: false }).sendReset(CLI_ACTOR, user.id);
  return resetUrl ?? `${localRelayUrl}/reset-password?token=${encodeURIComponent(token)}`;
}
