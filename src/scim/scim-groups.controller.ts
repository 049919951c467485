import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { PublicUrlService } from '../relay/public-url.service';
import { readPatchBody, scimAttribute } from './scim-bodies';
import { ScimErrorFilter } from './scim-error.filter';
import { matchesFilter, parseScimFilter } from './scim-filter';
import { ScimGroupsService } from './scim-groups.service';
import { scimBaseUrl } from './scim-origin';
import { listResponse, page, toScimGroup, type ScimResource } from './scim-resources';

/** SCIM 2.0 Groups: membership maps to roles with the sso role mapping (docs/identity.md). */
@ApiExcludeController()
@UseFilters(ScimErrorFilter)
@Controller('scim/v2/Groups')
export class ScimGroupsController {
  constructor(
    private readonly groups: ScimGroupsService,
    private readonly publicUrl: PublicUrlService,
  ) {}

  @Get()
  @Auth({ scim: true })
  async list(
    @Req() req: Request,
    @Query('filter') filter?: string,
    @Query('startIndex') startIndex?: string,
    @Query('count') count?: string,
    @Query('excludedAttributes') excluded?: string,
  ): Promise<ScimResource> {
    const parsed = parseScimFilter(typeof filter === 'string' ? filter : undefined, ['displayName', 'externalId']);
    const all = await this.groups.list();
    const matched = parsed ? all.filter((g) => matchesFilter(parsed.attribute === 'externalId' ? g.externalId : g.displayName, parsed)) : all;
    const { slice, startIndex: start } = page(matched, startIndex, count);
    const base = scimBaseUrl(this.publicUrl, req);
    // Okta and Entra ask with excludedAttributes=members to keep large groups out of a lookup.
    const withoutMembers = typeof excluded === 'string' && /(^|,)\s*members\s*(,|$)/i.test(excluded);
    return listResponse(matched.length, start, slice.map((g) => toScimGroup(g, withoutMembers ? [] : (g.members ?? []), base)));
  }

  @Get(':id')
  @Auth({ scim: true })
  async get(@Req() req: Request, @Param('id') id: string): Promise<ScimResource> {
    const group = await this.groups.find(id);
    return toScimGroup(group, group.members ?? [], scimBaseUrl(this.publicUrl, req));
  }

  @Post()
  @HttpCode(201)
  @Auth({ scim: true })
  async create(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Body() body: unknown): Promise<ScimResource> {
    const group = await this.groups.create(actor, body);
    return toScimGroup(group, group.members ?? [], scimBaseUrl(this.publicUrl, req));
  }

  @Put(':id')
  @Auth({ scim: true })
  async replace(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    const value = { displayName: scimAttribute(body, 'displayName'), externalId: scimAttribute(body, 'externalId') ?? null, members: scimAttribute(body, 'members') ?? [] };
    const group = await this.groups.change(actor, id, [{ op: 'replace', path: null, value }]);
    return toScimGroup(group, group.members ?? [], scimBaseUrl(this.publicUrl, req));
  }

  @Patch(':id')
  @Auth({ scim: true })
  async patch(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    const group = await this.groups.change(actor, id, readPatchBody(body));
    return toScimGroup(group, group.members ?? [], scimBaseUrl(this.publicUrl, req));
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ scim: true })
  async delete(@CurrentPrincipal() actor: Principal, @Param('id') id: string): Promise<void> {
    await this.groups.delete(actor, id);
  }
}
