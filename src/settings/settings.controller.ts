import { Body, Controller, Get, HttpCode, Patch, Put, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors, OkResponse } from '../common/api/responses';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { IMAGE_RULES, StoredImagesService } from '../images/stored-images.service';
import { TeamBrand, TeamSettings } from './settings.mapper';
import { ReviewPolicyDto } from './dto/review-policy.dto';
import { TEAM_NAME_MAX, UpdateSettingsFields } from './dto/update-settings.dto';
import { SettingsService } from './settings.service';

@ApiTags('settings')
@Controller('settings')
export class SettingsController {
  constructor(
    private readonly settings: SettingsService,
    private readonly images: StoredImagesService,
  ) {}

  @Get()
  @Auth({ cookie: true })
  @ApiOkResponse({ type: TeamSettings })
  @ApiErrors(401)
  read(): Promise<TeamSettings> {
    return this.settings.read();
  }

  /** The team's name and logo for the sign-in page (issue 40 item 7): shown to anyone who reaches it, as on a share link's page. */
  @Get('brand')
  @Auth({ public: true })
  @ApiOkResponse({ type: TeamBrand })
  async brand(): Promise<TeamBrand> {
    const [team_name, logo_data_url] = await Promise.all([this.settings.teamName(), this.settings.logoDataUrl()]);
    return { team_name, logo_data_url };
  }

  /** The team's review policy (beyond the spec, issue 40 item 6): every member reads it, for the Reject dialog. */
  @Get('review')
  @Auth({ cookie: true })
  @ApiOkResponse({ type: ReviewPolicyDto })
  @ApiErrors(401)
  reviewPolicy(): Promise<ReviewPolicyDto> {
    return this.settings.reviewPolicy();
  }

  @Put('review')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: ReviewPolicyDto })
  @ApiErrors(400, 401, 403)
  setReviewPolicy(@CurrentPrincipal() actor: Principal, @Body() dto: ReviewPolicyDto): Promise<ReviewPolicyDto> {
    return this.settings.setReviewPolicy(actor, dto);
  }

  @Patch()
  @HttpCode(200)
  @ApiMultipartBody({
    team_name: { type: 'string', minLength: 1, maxLength: TEAM_NAME_MAX },
    logo: binaryFile(`optional; ${IMAGE_RULES.logo.describe}`),
  })
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: OkResponse, description: 'at least one of team_name and logo must be sent' })
  @ApiErrors(400, 401, 403, 413)
  async update(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<OkResponse> {
    await this.settings.update(principal, await this.images.receive(req, { logo: 'logo' }, UpdateSettingsFields));
    return { ok: true };
  }
}
