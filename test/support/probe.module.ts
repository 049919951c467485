import { Controller, Get, Module, Post } from '@nestjs/common';
import { Auth } from '../../src/common/auth/auth.decorator';
import type { Principal } from '../../src/common/auth/principal';
import { CurrentPrincipal } from '../../src/common/auth/principal.decorator';
import { ADMIN_ONLY, WRITER_ROLES } from '../../src/common/auth/role';

export const PROBE = '/api/v1/test-probe';
export const PROBE_FAILURE_DETAIL = 'probe exploded: db password=hunter2 at /secret/path';

interface ProbeAnswer {
  userId: number;
  role: string;
  via: string;
  scopes: string[];
}

const answer = (p: Principal): ProbeAnswer => ({ userId: p.userId, role: p.role, via: p.via, scopes: p.scopes });

/**
 * Routes that exist only in tests, one per kind of access requirement, so the real AuthGuard,
 * AuthenticatorService, error filter and CSRF rule can be exercised with PATs before any feature
 * endpoint that accepts PATs exists. They run through exactly the same pipeline as real routes.
 */
@Controller('test-probe')
export class ProbeController {
  /** Like GET /apps: cookie or PAT(view), any role. */
  @Get('view')
  @Auth({ pat: 'view' })
  view(@CurrentPrincipal() p: Principal): ProbeAnswer {
    return answer(p);
  }

  /** Like POST /builds: cookie or PAT(builds:write), writers only. */
  @Post('write')
  @Auth({ pat: 'builds:write', roles: WRITER_ROLES })
  write(@CurrentPrincipal() p: Principal): ProbeAnswer {
    return answer(p);
  }

  /** Like GET /builds: cookie or PAT(builds:write), every role. */
  @Get('read-builds')
  @Auth({ pat: 'builds:write' })
  readBuilds(@CurrentPrincipal() p: Principal): ProbeAnswer {
    return answer(p);
  }

  /** Like the team endpoints: cookie only, Admin only. */
  @Post('admin')
  @Auth({ roles: ADMIN_ONLY })
  admin(@CurrentPrincipal() p: Principal): ProbeAnswer {
    return answer(p);
  }

  /** An unexpected failure inside a handler. */
  @Get('boom')
  @Auth({ public: true })
  boom(): never {
    throw new Error(PROBE_FAILURE_DETAIL);
  }

  /** A handler someone forgot to declare: the global guard must refuse it. */
  @Get('undeclared')
  undeclared(): { leaked: true } {
    return { leaked: true };
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
