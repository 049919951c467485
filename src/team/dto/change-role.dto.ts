import { IsIn } from 'class-validator';
import { ROLES, Role } from '../../common/auth/role';

export class ChangeRoleDto {
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}
