import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ChangeRoleDto } from './dto/change-role.dto';
import { Member } from './team.mapper';
import { TeamService } from './team.service';

/** Team members (Admin only). Invitations and send-reset live in their own modules. */
@ApiTags('team')
@Controller('team/members')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get()
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  list(): Promise<Member[]> {
    return this.team.list();
  }

  @Patch(':id')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  async changeRole(@Param('id', ParseIdPipe) id: number, @Body() dto: ChangeRoleDto): Promise<{ ok: true }> {
    await this.team.changeRole(id, dto.role);
    return { ok: true };
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', ParseIdPipe) id: number): Promise<void> {
    await this.team.delete(principal, id);
  }
}
