import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ErrorMessages } from '../common/errors/error-messages';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { BuildChanges } from './forges.mapper';
import { ForgesService } from './forges.service';

/** "What changed" in a build (beyond the spec; docs/integrations.md): same access as GET /builds/:id. */
@ApiTags('builds')
@Controller('builds')
export class BuildChangesController {
  constructor(private readonly forges: ForgesService) {}

  @Get(':id/changes')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOperation({ summary: 'The commits since the app\'s last Done build (the forge\'s compare API), or the upload\'s changelog' })
  @ApiOkResponse({ type: BuildChanges })
  @ApiErrors(400, 401, 403, 404)
  changes(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number): Promise<BuildChanges> {
    return this.forges.changesOf(id);
  }
}
