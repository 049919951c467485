import { ROLES, type Role } from '../common/auth/role';
import type { RoleMapping } from '../config/sso-config';

/**
 * The role a member's groups give under `mapping`: the highest role any group maps to (ROLES is
 * ordered Admin first), else the default role, else null (refused). Groups are compared exactly,
 * except that a group given as a DN also matches its first RDN's value (`cn=qa,ou=groups,…` = `qa`),
 * so one mapping reads the same for an LDAP `memberOf` and an OIDC `groups` claim.
 */
export function roleForGroups(groups: readonly string[], mapping: RoleMapping): Role | null {
  const names = new Set<string>();
  for (const group of groups) {
    names.add(group);
    const rdn = /^[a-z]+=((?:\\.|[^,])+)(,|$)/i.exec(group);
    if (rdn) names.add(rdn[1]);
  }
  for (const role of ROLES) {
    if (mapping.roles[role].some((group) => names.has(group))) return role;
  }
  return mapping.defaultRole;
}

/** A claim value as a list of group names: an array of strings, one string, or nothing. */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
