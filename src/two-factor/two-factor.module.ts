import { CommonModule } from '../common/common.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TwoFactorController } from './two-factor.controller';
import { RecoveryCodeEntity, TwoFactorChallengeEntity, TwoFactorCredentialEntity, TwoFactorPolicyEntity } from './two-factor.entities';
import { TwoFactorRepository } from './two-factor.repository';
import { TwoFactorService } from './two-factor.service';

/**
 * Two-factor sign-in for local accounts (docs/auth.md): owns the TOTP credentials, recovery codes,
 * pending sign-ins and the policy. Below auth: the sign-in step and the enrolment rule in the
 * authenticator call TwoFactorService.
 */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([TwoFactorCredentialEntity, RecoveryCodeEntity, TwoFactorChallengeEntity, TwoFactorPolicyEntity])],
  controllers: [TwoFactorController],
  providers: [TwoFactorService, TwoFactorRepository],
  exports: [TwoFactorService],
})
export class TwoFactorModule {}
