import type { RoleMapping } from '../config/sso-config';
import { groupsFromClaim, roleForGroups } from './role-mapping';

const mapping: RoleMapping = {
  roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'], QA: ['qa'], Viewer: [] },
  defaultRole: null,
};

describe('roleForGroups', () => {
  it('gives the highest mapped role, whatever the order of the groups', () => {
    expect(roleForGroups(['qa', 'mobile-devs'], mapping)).toBe('Developer');
    expect(roleForGroups(['qa', 'relay-admins', 'x'], mapping)).toBe('Admin');
  });

  it('matches a DN by its first RDN value, and the full DN too', () => {
    expect(roleForGroups(['cn=qa,ou=groups,dc=example,dc=org'], mapping)).toBe('QA');
    const byDn = { ...mapping, roles: { ...mapping.roles, Viewer: ['cn=all,ou=groups,dc=example,dc=org'] } };
    expect(roleForGroups(['cn=all,ou=groups,dc=example,dc=org'], byDn)).toBe('Viewer');
  });

  it('falls back to the default role, and to null (refused) without one', () => {
    expect(roleForGroups(['other'], mapping)).toBeNull();
    expect(roleForGroups([], { ...mapping, defaultRole: 'Viewer' })).toBe('Viewer');
  });

  it('reads a claim as a list', () => {
    expect(groupsFromClaim('qa')).toEqual(['qa']);
    expect(groupsFromClaim(['a', 3, 'b'])).toEqual(['a', 'b']);
    expect(groupsFromClaim(undefined)).toEqual([]);
  });
});
