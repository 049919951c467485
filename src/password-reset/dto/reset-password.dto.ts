import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE } from '../../auth/dto/credentials.dto';

export class ResetPasswordDto {
  // class-validator runs decorators bottom-up; with stopAtFirstError the type check must come first.
  @ApiProperty({ maxLength: 200, description: 'from the reset link' })
  @MaxLength(200)
  @IsNotEmpty({ message: 'token is required' })
  @IsString({ message: 'token is required' })
  token: string;

  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })
  @MaxLength(PASSWORD_MAX)
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @IsString({ message: PASSWORD_RULE })
  password: string;
}
