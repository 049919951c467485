import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AccessRequirement, AUTH_REQUIREMENT } from '../common/auth/auth.decorator';
import type { AuthenticatedRequest } from '../common/auth/principal.decorator';
import { forbidden } from '../common/errors/http-error';
import { andThen, type Sometimes } from '../common/sometimes';
import { AuthenticatorService } from './authenticator.service';

/** The global guard: every HTTP route must declare @Auth; a route without one is refused. */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('Auth');

  /**
   * Each route's @Auth (its handler's, else its controller's), read once per controller and handler:
   * decorators are applied when the classes load, so it never changes, and reading it through the
   * Reflector cost two metadata walks a request.
   */
  private readonly requirements = new WeakMap<Function, WeakMap<Function, AccessRequirement | null>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: AuthenticatorService,
  ) {}

  /** At once when the credential's lookup is held (no promise a request), else once it is read. */
  canActivate(context: ExecutionContext): Sometimes<boolean> {
    if (context.getType() !== 'http') return true; // WebSocket gateways authenticate at the upgrade.
    const requirement = this.requirementOf(context);
    if (!requirement) {
      this.logger.error(`Route ${context.getClass().name}.${context.getHandler().name} has no @Auth; refused`);
      throw forbidden();
    }
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    return andThen(this.authenticator.authenticate(req, requirement), (principal) => {
      req.principal = principal;
      return true;
    });
  }

  private requirementOf(context: ExecutionContext): AccessRequirement | null {
    const controller = context.getClass();
    const handler = context.getHandler();
    let handlers = this.requirements.get(controller);
    if (!handlers) this.requirements.set(controller, (handlers = new WeakMap()));
    let requirement = handlers.get(handler);
    if (requirement === undefined) {
      requirement = this.reflector.getAllAndOverride<AccessRequirement | undefined>(AUTH_REQUIREMENT, [handler, controller]) ?? null;
      handlers.set(handler, requirement);
    }
    return requirement;
  }
}
