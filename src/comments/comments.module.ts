import { Module } from '@nestjs/common';
import { AttachmentFiles } from './attachment-files';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { ImagesModule } from '../images/images.module';
import { CommentsBuildsDeletedListener } from './builds-deleted.listener';
import { CommentAttachmentEntity } from './comment-attachment.entity';
import { CommentEntity } from './comment.entity';
import { CommentsRepository } from './comments.repository';
import { CommentsController } from './comments.controller';
import { CommentsService } from './comments.service';
import { CommonModule } from '../common/common.module';
import { SettingsModule } from '../settings/settings.module';
import { RejectReasonGuard } from './reject-reason.guard';

/** Comments on builds with image attachments. */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([CommentEntity, CommentAttachmentEntity]), BuildsModule, ImagesModule, SettingsModule],
  controllers: [CommentsController],
  providers: [CommentsService, CommentsRepository, CommentsBuildsDeletedListener, AttachmentFiles, RejectReasonGuard],
  exports: [CommentsService],
})
export class CommentsModule {}
