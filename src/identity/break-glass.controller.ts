import { Body, Controller, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { BreakGlassService } from './break-glass.service';
import { BreakGlassDto } from './dto/break-glass.dto';

/** Which members keep a password under `sso.only` (Admin only; docs/identity.md "SSO only"). */
@ApiTags('team')
@Controller('team/members')
export class BreakGlassController {
  constructor(private readonly breakGlass: BreakGlassService) {}

  @Put(':id/break-glass')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  async set(@CurrentPrincipal() actor: Principal, @Param('id', new ParseIdPipe('Member not found')) id: number, @Body() dto: BreakGlassDto): Promise<OkResponse> {
    await this.breakGlass.set(actor, id, dto.break_glass);
    return { ok: true };
  }
}
