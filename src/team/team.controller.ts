import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ChangeRoleDto } from './dto/change-role.dto';
import { Member } from './team.mapper';
import { TeamMessages, TeamService } from './team.service';

/** Team members (Admin only). Invitations and send-reset live in their own modules. */
@ApiTags('team')
@Controller('team/members')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get()
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: [Member] })
  @ApiErrors(401, 403)
  list(): Promise<Member[]> {
    return this.team.list();
  }

  @Patch(':id')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  async changeRole(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(TeamMessages.memberNotFound)) id: number,
    @Body() dto: ChangeRoleDto,
  ): Promise<OkResponse> {
    await this.team.changeRole(principal, id, dto.role);
    return { ok: true };
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiNoContentResponse({ description: 'the member is removed; a member cannot delete themself (400)' })
  @ApiErrors(400, 401, 403, 404, 409)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(TeamMessages.memberNotFound)) id: number): Promise<void> {
    await this.team.delete(principal, id);
  }
}
