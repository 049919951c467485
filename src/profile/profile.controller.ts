import { Controller, HttpCode, Patch, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { IMAGE_RULES, StoredImagesService } from '../images/stored-images.service';
import { DISPLAY_NAME_MAX } from '../users/users.service';
import { UpdateProfileFields } from './dto/update-profile.dto';
import { ProfileService } from './profile.service';

@ApiTags('profile')
@Controller('profile')
export class ProfileController {
  constructor(
    private readonly profile: ProfileService,
    private readonly images: StoredImagesService,
  ) {}

  @Patch()
  @HttpCode(200)
  @ApiMultipartBody({
    display_name: { type: 'string', maxLength: DISPLAY_NAME_MAX, description: 'empty clears it' },
    avatar: binaryFile(`optional; ${IMAGE_RULES.avatar.describe}`),
  })
  @Auth({ cookie: true })
  @ApiOkResponse({ type: OkResponse, description: 'at least one of display_name and avatar must be sent' })
  @ApiErrors(400, 401, 403, 413)
  async update(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<OkResponse> {
    await this.profile.update(principal, await this.images.receive(req, { avatar: 'avatar' }, UpdateProfileFields));
    return { ok: true };
  }
}
