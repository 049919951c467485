import { Controller, Get, Param, Req, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { PublicUrlService } from '../relay/public-url.service';
import { ScimError } from './scim-error';
import { ScimErrorFilter } from './scim-error.filter';
import { scimBaseUrl } from './scim-origin';
import { GROUP_SCHEMA, listResponse, SCIM_BASE, USER_SCHEMA, type ScimResource } from './scim-resources';

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** What the relay keeps of each resource (RFC 7643 §7); everything else a provider sends is ignored. */
const SCHEMAS: ScimResource[] = [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A member of the relay; userName is their e-mail address',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('displayName'),
      attribute('externalId', { caseExact: true }),
      attribute('active', { type: 'boolean' }),
      attribute('emails', { type: 'complex', multiValued: true, subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })] }),
      attribute('groups', { type: 'complex', multiValued: true, mutability: 'readOnly', subAttributes: [attribute('value'), attribute('display')] }),
    ],
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group of members; its displayName maps to a role through sso roles',
    attributes: [
      attribute('displayName', { required: true, uniqueness: 'server' }),
      attribute('externalId', { caseExact: true }),
      attribute('members', { type: 'complex', multiValued: true, subAttributes: [attribute('value'), attribute('display')] }),
    ],
  },
];

/** RFC 7644 §4: the discovery endpoints identity providers read before provisioning. */
@ApiExcludeController()
@UseFilters(ScimErrorFilter)
@Controller('scim/v2')
export class ScimDiscoveryController {
  constructor(private readonly publicUrl: PublicUrlService) {}

  @Get('ServiceProviderConfig')
  @Auth({ scim: true })
  serviceProviderConfig(@Req() req: Request): ScimResource {
    return {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      documentationUri: `${scimBaseUrl(this.publicUrl, req)}/api/docs`,
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        { type: 'oauthbearertoken', name: 'Bearer token', description: 'A SCIM token an Admin creates on the relay (svc_scim_…)', primary: true },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${scimBaseUrl(this.publicUrl, req)}${SCIM_BASE}/ServiceProviderConfig` },
    };
  }

  @Get('ResourceTypes')
  @Auth({ scim: true })
  resourceTypes(@Req() req: Request): ScimResource {
    const base = scimBaseUrl(this.publicUrl, req);
    const type = (name: string, endpoint: string, schema: string) => ({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: name,
      name,
      endpoint,
      schema,
      meta: { resourceType: 'ResourceType', location: `${base}${SCIM_BASE}/ResourceTypes/${name}` },
    });
    return listResponse(2, 1, [type('User', '/Users', USER_SCHEMA), type('Group', '/Groups', GROUP_SCHEMA)]);
  }

  @Get('Schemas')
  @Auth({ scim: true })
  schemas(): ScimResource {
    return listResponse(SCHEMAS.length, 1, SCHEMAS);
  }

  @Get('Schemas/:id')
  @Auth({ scim: true })
  schema(@Param('id') id: string): ScimResource {
    const found = SCHEMAS.find((s) => s.id === id);
    if (!found) throw new ScimError(404, `Schema ${id} not found`);
    return found;
  }
}
