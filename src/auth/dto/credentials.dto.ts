import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

/** Passwords: at least 8 characters; the upper bound only stops absurd request sizes. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;
const EMAIL_MAX = 320;

const minLengthRule = (field: string) => `${field} must be at least ${PASSWORD_MIN} characters`;
const maxLengthRule = (field: string, max: number) => `${field} must be at most ${max} characters`;
export const PASSWORD_RULE = minLengthRule('password');

export class InitDto {
  @ApiProperty({ example: 'admin@example.com', maxLength: EMAIL_MAX })
  @Trim()
  @IsString({ message: 'email is required' })
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(EMAIL_MAX, { message: maxLengthRule('email', EMAIL_MAX) })
  email: string;

  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })
  @IsString({ message: PASSWORD_RULE })
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @MaxLength(PASSWORD_MAX, { message: maxLengthRule('password', PASSWORD_MAX) })
  password: string;
}

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com', description: 'matched ignoring letter case and surrounding spaces' })
  @IsString({ message: 'email is required' })
  @IsNotEmpty({ message: 'email is required' })
  @MaxLength(EMAIL_MAX, { message: maxLengthRule('email', EMAIL_MAX) })
  email: string;

  @ApiProperty()
  @IsString({ message: 'password is required' })
  @IsNotEmpty({ message: 'password is required' })
  @MaxLength(PASSWORD_MAX, { message: maxLengthRule('password', PASSWORD_MAX) })
  password: string;
}

export class ChangePasswordDto {
  @ApiProperty()
  @IsString({ message: 'currentPassword is required' })
  @IsNotEmpty({ message: 'currentPassword is required' })
  @MaxLength(PASSWORD_MAX, { message: maxLengthRule('currentPassword', PASSWORD_MAX) })
  currentPassword: string;

  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })
  @IsString({ message: minLengthRule('newPassword') })
  @MinLength(PASSWORD_MIN, { message: minLengthRule('newPassword') })
  @MaxLength(PASSWORD_MAX, { message: maxLengthRule('newPassword', PASSWORD_MAX) })
  newPassword: string;
}

/** POST /profile/two-factor/setup: the password again, so a borrowed session cannot put its own second factor on the account. */
export class TwoFactorSetupDto {
  @ApiProperty()
  @IsString({ message: 'currentPassword is required' })
  @IsNotEmpty({ message: 'currentPassword is required' })
  @MaxLength(PASSWORD_MAX, { message: maxLengthRule('currentPassword', PASSWORD_MAX) })
  currentPassword: string;
}
