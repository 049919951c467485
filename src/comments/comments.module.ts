import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UploadsModule } from '../uploads/uploads.module';
import { BuildExistence } from './build-existence';
import { CommentAttachmentEntity } from './comment-attachment.entity';
import { CommentEntity } from './comment.entity';
import { CommentsController } from './comments.controller';
import { CommentsService } from './comments.service';

/** Comments on builds with image attachments. */
@Module({
  imports: [TypeOrmModule.forFeature([CommentEntity, CommentAttachmentEntity]), UploadsModule],
  controllers: [CommentsController],
  providers: [CommentsService, BuildExistence],
  exports: [CommentsService],
})
export class CommentsModule {}
