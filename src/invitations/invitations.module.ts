import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { RelayModule } from '../relay/relay.module';
import { UsersModule } from '../users/users.module';
import { SettingsModule } from '../settings/settings.module';
import { ImagesModule } from '../images/images.module';
import { InvitationEntity } from './invitation.entity';
import { InvitationsController } from './invitations.controller';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';
import { CommonModule } from '../common/common.module';

/** Invitations: create (Admin), verify, accept (the `/invite` page is the dashboard's). */
@Module({
  imports: [
    CommonModule,
    TypeOrmModule.forFeature([InvitationEntity]),
    UsersModule,
    AuthModule,
    RelayModule,
    MailModule,
    SettingsModule,
    ImagesModule,
  ],
  controllers: [InvitationsController],
  providers: [InvitationsService, InvitationsRepository],
  exports: [InvitationsService],
})
export class InvitationsModule {}
