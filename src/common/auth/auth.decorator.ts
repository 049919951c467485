import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth } from '@nestjs/swagger';
import type { Role } from './role';
import type { Scope } from './scope';

export const AUTH_REQUIREMENT = 'svc:auth-requirement';

/**
 * Who may call an endpoint, declared once on the handler and enforced by the global AuthGuard.
 * A route without @Auth is refused.
 *
 * - `public`: no sign-in needed.
 * - `cookie`: the session cookie is accepted (default true unless `public`).
 * - `pat`: a PAT with this scope is accepted too (spec §5.3); omitted = cookie only.
 * - `roles`: the caller's current role must be one of these.
 * - `roleRefusal`: the 403 message when the role does not match (default `Forbidden`).
 * - `hostOnly`: only requests from the relay host; the value is the 403 message for others.
 * - `beforeSecondFactor`: open to a cookie of a member the two-factor policy sends to enrolment
 *   (who they are, signing out, the enrolment itself); every other cookie route refuses them 403.
 * - `basic`: the PAT may also come as the password of HTTP Basic (WebDriver clients send cloud
 *   credentials that way: `https://user:svc_pat_…@relay/wd/hub`); the user name is not read.
 * - `scim`: a SCIM bearer token only (`/scim/v2`, docs/identity.md); no cookie, no PAT.
 *
 * Also on WebSocket gateway classes: UpgradeRoutingWsAdapter authenticates their upgrades with it.
 */
export interface AccessRequirement {
  public?: boolean;
  cookie?: boolean;
  pat?: Scope | Scope[];
  roles?: Role[];
  roleRefusal?: string;
  hostOnly?: string;
  beforeSecondFactor?: boolean;
  scim?: boolean;
  basic?: boolean;
}

export function Auth(requirement: AccessRequirement) {
  const docs = requirement.public
    ? []
    : requirement.scim
      ? [ApiBearerAuth('scim')]
      : [ApiCookieAuth('svc_token'), ...(requirement.pat ? [ApiBearerAuth('pat')] : [])];
  return applyDecorators(SetMetadata(AUTH_REQUIREMENT, requirement), ...docs);
}
