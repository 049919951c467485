import type { TestRelay } from './test-relay';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Deactivates a member as an identity provider does, through `relay`'s SCIM endpoint. SCIM acts only on
 * members it manages (docs/identity.md): the same PATCH links the local member through an externalId.
 */
export function scimDeactivate(relay: TestRelay, scimToken: string, userId: number) {
  return relay
    .http()
    .patch(`/scim/v2/Users/${userId}`)
    .set('Authorization', `Bearer ${scimToken}`)
    .set('Content-Type', 'application/scim+json')
    .send(
      JSON.stringify({
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'externalId', value: `ext-${userId}` },
          { op: 'replace', path: 'active', value: false },
        ],
      }),
    );
}
