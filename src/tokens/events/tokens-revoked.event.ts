export type TokenRevocationReason = 'revoked' | 'password_reset' | 'member_deleted';

/** PATs stopped being valid (revoked, owner's password reset, owner deleted). Agents using them must close (4001). */
export class TokensRevokedEvent {
  static readonly eventName = 'tokens.revoked';
  constructor(
    readonly userId: number,
    readonly tokenIds: number[],
    readonly reason: TokenRevocationReason,
  ) {}
}
