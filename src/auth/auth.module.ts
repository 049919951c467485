import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { AuthenticatorService } from './authenticator.service';
import { LoginThrottleService } from './login-throttle.service';
import { SessionEntity } from './session.entity';
import { SessionsService } from './sessions.service';

/** Sign-in, sessions and the global access guard. Global so gateways can authenticate upgrades. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SessionEntity]), UsersModule, TokensModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    AuthenticatorService,
    SessionsService,
    LoginThrottleService,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [AuthenticatorService, SessionsService, AuthService, UsersModule, TokensModule],
})
export class AuthModule {}
