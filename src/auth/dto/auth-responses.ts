import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ROLES, type Role } from '../../common/auth/role';
import { MeResponse } from '../../users/users.mapper';

/** The sign-in methods the dashboard offers. */
export class OidcMethod {
  @ApiProperty({ description: 'the provider, for "Sign in with <name>"', example: 'Okta' })
  name: string;
  @ApiProperty({ example: '/api/v1/auth/oidc/login' })
  loginPath: string;
}

export class SignInMethods {
  @ApiProperty({ description: 'the e-mail and password form (false under sso.only, where only break-glass members may still use it)' })
  password: boolean;
  @ApiProperty({ description: 'the password form checks passwords against the LDAP directory' })
  ldap: boolean;
  @ApiProperty({ type: OidcMethod, nullable: true })
  oidc: OidcMethod | null;
  @ApiProperty({ description: 'sso.only: password sign-in, resets and password invitations are refused except for break-glass members' })
  ssoOnly: boolean;
}

/** GET /auth/status. */
export class AuthStatusResponse {
  @ApiProperty({ description: 'an account exists' })
  initialized: boolean;
  @ApiProperty({ description: 'no account exists and the request comes from the relay host' })
  canInitialize: boolean;
  @ApiPropertyOptional({
    type: SignInMethods,
    description: 'beyond the spec, only when single sign-on is configured (docs/identity.md): how members sign in here; absent means e-mail and password only',
  })
  methods?: SignInMethods;
}

/** POST /auth/login (the cookie `svc_token` comes with it, unless a second factor is asked for). */
export class LoginResponse {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
  @ApiProperty({ enum: ROLES })
  role: Role;
  @ApiPropertyOptional({
    enum: [true],
    description: 'beyond the spec: the member signs in with a second factor; no cookie was set; send the code with `challenge` to POST /auth/login/two-factor',
  })
  two_factor_required?: true;
  @ApiPropertyOptional({ description: 'with two_factor_required: valid 5 minutes, for 5 codes' })
  challenge?: string;
}

/**
 * GET /auth/session (beyond the spec, docs/auth.md): who this browser is signed in as, 200 either
 * way, so a signed-out first visit asks without a 401 (which browsers log as a console error).
 */
export class AuthSessionResponse {
  @ApiProperty({ type: MeResponse, nullable: true, description: 'null when not signed in (no or an ended session)' })
  me: MeResponse | null;
  @ApiProperty({ description: "beyond the spec: the team requires a second factor of this member and they have none; only enrolment is open" })
  two_factor_enrolment_required: boolean;
}

/** POST /auth/oidc/logout. */
export class OidcLogoutResponse {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
  @ApiProperty({ type: String, nullable: true, description: "the provider's end-session URL to open next, or null" })
  redirect: string | null;
}
