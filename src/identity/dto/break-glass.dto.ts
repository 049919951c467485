import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** PUT /team/members/:id/break-glass. */
export class BreakGlassDto {
  @ApiProperty({ description: 'may sign in with a password under sso.only (docs/identity.md)' })
  @IsBoolean({ message: 'break_glass must be true or false' })
  break_glass: boolean;
}
