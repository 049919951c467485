import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { sqlDateTime } from '../common/time';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { BuildDownloadService } from './build-download.service';
import { BuildIntakeService } from './build-intake.service';
import { BuildQueryService } from './build-query.service';
import { BuildReviewService } from './build-review.service';
import { BuildResponse, BuildSummary, toBuildResponse, toBuildSummary } from './builds.mapper';
import { ListBuildsQuery } from './dto/list-builds.query';
import { UpdateBuildDto } from './dto/update-build.dto';

@ApiTags('builds')
@Controller('builds')
export class BuildsController {
  constructor(
    private readonly intake: BuildIntakeService,
    private readonly query: BuildQueryService,
    private readonly review: BuildReviewService,
    private readonly download: BuildDownloadService,
  ) {}

  @Post()
  @ApiConsumes('multipart/form-data')
  @Auth({ cookie: true, pat: 'builds:write', roles: WRITER_ROLES })
  async upload(@Req() req: Request): Promise<BuildSummary> {
    return toBuildSummary(await this.intake.receive(req));
  }

  @Get()
  @Auth({ cookie: true, pat: 'builds:write' })
  async list(@Query() query: ListBuildsQuery): Promise<{ items: BuildResponse[]; total: number }> {
    const page = await this.query.list(query);
    return { items: page.items.map(toBuildResponse), total: page.total };
  }

  @Get(':id')
  @Auth({ cookie: true, pat: 'builds:write' })
  async get(@Param('id', ParseIdPipe) id: number): Promise<BuildResponse> {
    return toBuildResponse(await this.query.get(id));
  }

  @Patch(':id')
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async update(@Param('id', ParseIdPipe) id: number, @Body() dto: UpdateBuildDto): Promise<{ ok: true }> {
    await this.review.update(id, { statusLabel: dto.status_label, versionLabel: dto.version_label });
    return { ok: true };
  }

  @Post(':id/schedule-deletion')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async scheduleDeletion(@Param('id', ParseIdPipe) id: number): Promise<{ ok: true; delete_after: string }> {
    return { ok: true, delete_after: sqlDateTime(await this.review.scheduleDeletion(id)) };
  }

  @Delete(':id/schedule-deletion')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async cancelDeletion(@Param('id', ParseIdPipe) id: number): Promise<{ ok: true }> {
    await this.review.cancelDeletion(id);
    return { ok: true };
  }

  /** Beyond the spec: the stored file, for agents that install builds and for people (Range supported). */
  @Get(':id/download')
  @Auth({ cookie: true, pat: ['builds:write', 'view', 'agent'] })
  async downloadFile(@Param('id', ParseIdPipe) id: number, @Res() res: Response): Promise<void> {
    await this.download.send(id, res);
  }
}
