import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, UseFilters } from '@nestjs/common';
import { ApiBody, ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { PublicUrlService } from '../relay/public-url.service';
import { UsersService } from '../users/users.service';
import { readPatchBody, readUserBody, userPatchFields } from './scim-bodies';
import { ScimErrorFilter } from './scim-error.filter';
import { matchesFilter, parseScimFilter } from './scim-filter';
import { ScimMembersService } from './scim-members.service';
import { scimBaseUrl } from './scim-origin';
import { listResponse, page, toScimUser, type ScimResource } from './scim-resources';

const FILTERABLE = ['userName', 'externalId', 'displayName', 'emails.value'];

/**
 * SCIM 2.0 Users (RFC 7644 §3) for identity providers. Kept out of the OpenAPI document: SCIM is
 * its own standard with its own schemas (served at /scim/v2/Schemas) and error shape.
 */
@ApiExcludeController()
@UseFilters(ScimErrorFilter)
@Controller('scim/v2/Users')
export class ScimUsersController {
  constructor(
    private readonly members: ScimMembersService,
    private readonly users: UsersService,
    private readonly publicUrl: PublicUrlService,
  ) {}

  @Get()
  @Auth({ scim: true })
  async list(
    @Req() req: Request,
    @Query('filter') filter?: string,
    @Query('startIndex') startIndex?: string,
    @Query('count') count?: string,
  ): Promise<ScimResource> {
    const parsed = parseScimFilter(typeof filter === 'string' ? filter : undefined, FILTERABLE);
    const all = await this.users.list();
    const matched = parsed ? all.filter((u) => matchesFilter(this.attribute(u, parsed.attribute), parsed)) : all;
    const { slice, startIndex: start } = page(matched, startIndex, count);
    const base = scimBaseUrl(this.publicUrl, req);
    return listResponse(matched.length, start, await Promise.all(slice.map(async (u) => toScimUser(u, await this.members.groupsOf(u.id), base))));
  }

  @Get(':id')
  @Auth({ scim: true })
  async get(@Req() req: Request, @Param('id') id: string): Promise<ScimResource> {
    const user = await this.members.find(id);
    return toScimUser(user, await this.members.groupsOf(user.id), scimBaseUrl(this.publicUrl, req));
  }

  @Post()
  @HttpCode(201)
  @Auth({ scim: true })
  @ApiBody({ schema: { type: 'object' } })
  async create(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Body() body: unknown): Promise<ScimResource> {
    const user = await this.members.create(actor, readUserBody(body));
    return toScimUser(user, [], scimBaseUrl(this.publicUrl, req));
  }

  @Put(':id')
  @Auth({ scim: true })
  async replace(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    const fields = readUserBody(body);
    const user = await this.members.update(actor, id, { ...fields, displayName: fields.displayName ?? null, externalId: fields.externalId ?? null, active: fields.active ?? true });
    return toScimUser(user, await this.members.groupsOf(user.id), scimBaseUrl(this.publicUrl, req));
  }

  @Patch(':id')
  @Auth({ scim: true })
  async patch(@Req() req: Request, @CurrentPrincipal() actor: Principal, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    const user = await this.members.update(actor, id, userPatchFields(readPatchBody(body)));
    return toScimUser(user, await this.members.groupsOf(user.id), scimBaseUrl(this.publicUrl, req));
  }

  /** Deletes the member as the team page does (sessions, PATs, sockets, avatar; contributions stay). */
  @Delete(':id')
  @HttpCode(204)
  @Auth({ scim: true })
  async delete(@CurrentPrincipal() actor: Principal, @Param('id') id: string): Promise<void> {
    await this.members.delete(actor, id);
  }

  private attribute(user: { email: string; displayName: string | null; scimExternalId: string | null }, name: string): string | null {
    if (name === 'externalId') return user.scimExternalId;
    if (name === 'displayName') return user.displayName;
    return user.email;
  }
}
