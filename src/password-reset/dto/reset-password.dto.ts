import { IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE } from '../../auth/dto/credentials.dto';

export class ResetPasswordDto {
  // class-validator runs decorators bottom-up; with stopAtFirstError the type check must come first.
  @MaxLength(200)
  @IsNotEmpty({ message: 'token is required' })
  @IsString({ message: 'token is required' })
  token: string;

  @MaxLength(PASSWORD_MAX)
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @IsString({ message: PASSWORD_RULE })
  password: string;
}
