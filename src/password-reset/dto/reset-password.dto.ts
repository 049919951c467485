import { IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE } from '../../auth/dto/credentials.dto';

export class ResetPasswordDto {
  @IsString({ message: 'token is required' })
  @IsNotEmpty({ message: 'token is required' })
  @MaxLength(200)
  token: string;

  @IsString({ message: PASSWORD_RULE })
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @MaxLength(PASSWORD_MAX)
  password: string;
}
