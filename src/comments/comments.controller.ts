import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { IMAGE_RULES, StoredImagesService } from '../images/stored-images.service';
import { CommentCreated, CommentListItem } from './comments.mapper';
import { CommentMessages } from './comment-messages';
import { CommentsService } from './comments.service';
import { CreateCommentFields } from './dto/create-comment.dto';

@ApiTags('comments')
@Controller('comments')
export class CommentsController {
  constructor(
    private readonly comments: CommentsService,
    private readonly images: StoredImagesService,
  ) {}

  @Get()
  @Auth({ cookie: true })
  @ApiQuery({ name: 'build_id', required: true, schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: [CommentListItem], description: 'oldest first' })
  @ApiErrors(400, 401, 404)
  list(@Query('build_id') buildId: unknown): Promise<CommentListItem[]> {
    return this.comments.list(buildId);
  }

  @Post()
  @HttpCode(201)
  @ApiMultipartBody(
    {
      build_id: { type: 'integer', minimum: 1 },
      body: { type: 'string' },
      attachment: binaryFile(`optional; ${IMAGE_RULES.attachment.describe}`),
    },
    ['build_id', 'body'],
  )
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiCreatedResponse({ type: CommentCreated })
  @ApiErrors(400, 401, 403, 404, 413)
  async create(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<CommentCreated> {
    return this.comments.create(principal, await this.images.receive(req, { attachment: 'attachment' }, CreateCommentFields));
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true })
  @ApiNoContentResponse({ description: 'deleted with its attachments' })
  @ApiErrors(400, 401, 403, 404)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(CommentMessages.notFound)) id: number): Promise<void> {
    await this.comments.delete(principal, id);
  }
}
