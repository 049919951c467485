import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvitationsModule } from '../invitations/invitations.module';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { PasswordResetController } from './password-reset.controller';
import { PasswordResetEntity } from './password-reset.entity';
import { PasswordResetService } from './password-reset.service';
import { ResetPageController } from './reset-page.controller';

/** Password-reset links: send (Admin), verify, reset; the `/reset-password` page. */
@Module({
  imports: [TypeOrmModule.forFeature([PasswordResetEntity]), InvitationsModule, MailModule, SettingsModule],
  controllers: [PasswordResetController, ResetPageController],
  providers: [PasswordResetService],
  exports: [PasswordResetService],
})
export class PasswordResetModule {}
