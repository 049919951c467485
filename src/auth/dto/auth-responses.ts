import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../../common/auth/role';

/** GET /auth/status. */
export class AuthStatusResponse {
  @ApiProperty({ description: 'an account exists' })
  initialized: boolean;
  @ApiProperty({ description: 'no account exists and the request comes from the relay host' })
  canInitialize: boolean;
}

/** POST /auth/login (the cookie `svc_token` comes with it). */
export class LoginResponse {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
  @ApiProperty({ enum: ROLES })
  role: Role;
}
