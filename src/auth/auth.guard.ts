import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AccessRequirement, AUTH_REQUIREMENT } from '../common/auth/auth.decorator';
import type { AuthenticatedRequest } from '../common/auth/principal.decorator';
import { forbidden } from '../common/errors/http-error';
import { AuthenticatorService } from './authenticator.service';

/** The global guard: every HTTP route must declare @Auth; a route without one is refused. */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: AuthenticatorService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true; // WebSocket gateways authenticate at the upgrade.
    const requirement = this.reflector.getAllAndOverride<AccessRequirement | undefined>(AUTH_REQUIREMENT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!requirement) {
      this.logger.error(`Route ${context.getClass().name}.${context.getHandler().name} has no @Auth; refused`);
      throw forbidden();
    }
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    req.principal = await this.authenticator.authenticate(req, requirement);
    return true;
  }
}
