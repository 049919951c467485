import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { RelayModule } from '../relay/relay.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { PasswordResetController } from './password-reset.controller';
import { PasswordResetEntity } from './password-reset.entity';
import { PasswordResetRepository } from './password-reset.repository';
import { PasswordResetService } from './password-reset.service';
import { CommonModule } from '../common/common.module';

/** Password-reset links: send (Admin), verify, reset (the `/reset-password` page is the dashboard's). */
@Module({
  imports: [
    CommonModule,
    TypeOrmModule.forFeature([PasswordResetEntity]),
    UsersModule,
    AuthModule,
    TokensModule,
    RelayModule,
    InvitationsModule,
    MailModule,
    SettingsModule,
  ],
  controllers: [PasswordResetController],
  providers: [PasswordResetService, PasswordResetRepository],
  exports: [PasswordResetService],
})
export class PasswordResetModule {}
