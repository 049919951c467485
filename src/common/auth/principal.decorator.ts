import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from './principal';

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
}

/** The caller established by the AuthGuard (undefined on public routes). */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal,
);
