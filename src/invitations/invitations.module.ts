import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { UploadsModule } from '../uploads/uploads.module';
import { InvitationEntity } from './invitation.entity';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';
import { InvitePageController } from './invite-page.controller';

/** Invitations: create (Admin), verify, accept; the `/invite` page. */
@Module({
  imports: [TypeOrmModule.forFeature([InvitationEntity]), MailModule, SettingsModule, UploadsModule],
  controllers: [InvitationsController, InvitePageController],
  providers: [InvitationsService],
  exports: [InvitationsService],
})
export class InvitationsModule {}
