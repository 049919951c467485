import { IsEmail, IsString, MinLength, MaxLength, IsNotEmpty } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

/** Passwords: at least 8 characters; the upper bound only stops absurd request sizes. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;
export const PASSWORD_RULE = `password must be at least ${PASSWORD_MIN} characters`;

export class InitDto {
  @Trim()
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(320)
  email: string;

  @IsString({ message: PASSWORD_RULE })
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @MaxLength(PASSWORD_MAX)
  password: string;
}

export class LoginDto {
  @IsString({ message: 'email is required' })
  @IsNotEmpty({ message: 'email is required' })
  @MaxLength(320)
  email: string;

  @IsString({ message: 'password is required' })
  @IsNotEmpty({ message: 'password is required' })
  @MaxLength(PASSWORD_MAX)
  password: string;
}

export class ChangePasswordDto {
  @IsString({ message: 'currentPassword is required' })
  @IsNotEmpty({ message: 'currentPassword is required' })
  @MaxLength(PASSWORD_MAX)
  currentPassword: string;

  @IsString({ message: `newPassword must be at least ${PASSWORD_MIN} characters` })
  @MinLength(PASSWORD_MIN, { message: `newPassword must be at least ${PASSWORD_MIN} characters` })
  @MaxLength(PASSWORD_MAX)
  newPassword: string;
}
