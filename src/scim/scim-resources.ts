import { isoWithMillis } from '../common/time';
import type { UserEntity } from '../users/user.entity';
import type { ScimGroupEntity } from './scim-group.entity';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_BASE = '/scim/v2';

export type ScimResource = Record<string, unknown>;

/** A member as a SCIM User (RFC 7643 §4.1): userName is the e-mail; the role is not a SCIM attribute (it follows groups). */
export function toScimUser(user: UserEntity, groups: ScimGroupEntity[], baseUrl: string): ScimResource {
  const created = isoWithMillis(user.createdAt);
  return {
    schemas: [USER_SCHEMA],
    id: String(user.id),
    ...(user.scimExternalId ? { externalId: user.scimExternalId } : {}),
    userName: user.email,
    ...(user.displayName ? { displayName: user.displayName, name: { formatted: user.displayName } } : {}),
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
    groups: groups.map((g) => ({ value: String(g.id), display: g.displayName, $ref: `${baseUrl}${SCIM_BASE}/Groups/${g.id}` })),
    meta: { resourceType: 'User', created, lastModified: created, location: `${baseUrl}${SCIM_BASE}/Users/${user.id}` },
  };
}

export function toScimGroup(group: ScimGroupEntity, members: UserEntity[], baseUrl: string): ScimResource {
  const created = isoWithMillis(group.createdAt);
  return {
    schemas: [GROUP_SCHEMA],
    id: String(group.id),
    ...(group.externalId ? { externalId: group.externalId } : {}),
    displayName: group.displayName,
    members: members.map((m) => ({ value: String(m.id), display: m.email, $ref: `${baseUrl}${SCIM_BASE}/Users/${m.id}` })),
    meta: { resourceType: 'Group', created, lastModified: created, location: `${baseUrl}${SCIM_BASE}/Groups/${group.id}` },
  };
}

/** RFC 7644 §3.4.2.4: 1-based startIndex (below 1 is 1), count (negative is 0; capped at 200). */
export function page<T>(items: T[], startIndex: string | undefined, count: string | undefined): { slice: T[]; startIndex: number } {
  const start = Math.max(1, Number.parseInt(startIndex ?? '1', 10) || 1);
  const size = count === undefined ? 100 : Math.min(200, Math.max(0, Number.parseInt(count, 10) || 0));
  return { slice: items.slice(start - 1, start - 1 + size), startIndex: start };
}

export function listResponse(total: number, startIndex: number, resources: ScimResource[]): ScimResource {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
