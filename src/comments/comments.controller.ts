import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { StoredImagesService } from '../uploads/stored-images.service';
import { CommentCreated, CommentListItem } from './comments.mapper';
import { CommentsService } from './comments.service';

@ApiTags('comments')
@Controller('comments')
export class CommentsController {
  constructor(
    private readonly comments: CommentsService,
    private readonly images: StoredImagesService,
  ) {}

  @Get()
  @Auth({ cookie: true })
  list(@Query('build_id') buildId: unknown): Promise<CommentListItem[]> {
    return this.comments.list(buildId);
  }

  @Post()
  @HttpCode(201)
  @ApiConsumes('multipart/form-data')
  @Auth({ cookie: true, pat: 'builds:write' })
  async create(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<CommentCreated> {
    return this.comments.create(principal, await this.images.receive(req, { attachment: 'attachment' }));
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', ParseIdPipe) id: number): Promise<void> {
    await this.comments.delete(principal, id);
  }
}
