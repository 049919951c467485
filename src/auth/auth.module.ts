import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdentityModule } from '../identity/identity.module';
import { RelayModule } from '../relay/relay.module';
import { TokensModule } from '../tokens/tokens.module';
import { TwoFactorModule } from '../two-factor/two-factor.module';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { TwoFactorSetupController } from './two-factor-setup.controller';
import { AuthenticatorService } from './authenticator.service';
import { LoginThrottleService } from './login-throttle.service';
import { OidcController } from './oidc.controller';
import { SessionEntity } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import { SessionLookups } from './session-lookups';
import { SessionsService } from './sessions.service';
import { ClusterModule } from '../cluster/cluster.module';
import { CommonModule } from '../common/common.module';
import { SsoSignInService } from './sso-sign-in.service';

/**
 * Sign-in, sessions, and the one authenticator behind the access guard and the WebSocket upgrades
 * (the guard itself is registered in AppModule with the other cross-cutting pieces).
 */
@Module({
  imports: [CommonModule, ClusterModule, TypeOrmModule.forFeature([SessionEntity]), UsersModule, TokensModule, TwoFactorModule, IdentityModule, RelayModule],
  controllers: [AuthController, TwoFactorSetupController, OidcController],
  providers: [
    AuthService,
    AuthenticatorService,
    SessionsService,
    SessionLookups,
    SessionsRepository,
    LoginThrottleService,
    SsoSignInService,
  ],
  // LoginThrottleService also brakes guesses of share links' passwords.
  exports: [AuthenticatorService, SessionsService, AuthService, LoginThrottleService, UsersModule, TokensModule],
})
export class AuthModule {}
