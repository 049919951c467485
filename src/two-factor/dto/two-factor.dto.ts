import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { TWO_FACTOR_REQUIREMENTS, type TwoFactorRequirement } from '../two-factor.entities';

export class TwoFactorCodeDto {
  @ApiProperty({ description: 'the 6-digit code from the authenticator app, or a recovery code', example: '123456' })
  @MaxLength(32, { message: 'code must be at most 32 characters' })
  @IsNotEmpty({ message: 'code is required' })
  @IsString({ message: 'code is required' })
  code: string;
}

/** POST /auth/login/two-factor: the second step of a sign-in. */
export class TwoFactorSignInDto extends TwoFactorCodeDto {
  @ApiProperty({ description: 'the challenge POST /auth/login answered' })
  @MaxLength(100, { message: 'challenge is not valid' })
  @IsNotEmpty({ message: 'challenge is required' })
  @IsString({ message: 'challenge is required' })
  challenge: string;
}

export class TwoFactorPolicyDto {
  @ApiProperty({ enum: TWO_FACTOR_REQUIREMENTS, description: 'who must sign in with a second factor' })
  @IsIn(TWO_FACTOR_REQUIREMENTS, { message: `required_for must be one of ${TWO_FACTOR_REQUIREMENTS.join(', ')}` })
  required_for: TwoFactorRequirement;
}

export class TwoFactorStatusResponse {
  @ApiProperty() enabled: boolean;
  @ApiProperty({ description: 'unused recovery codes' }) recovery_codes_left: number;
  @ApiProperty({ description: "the team's policy requires it of this member" }) required: boolean;
}

export class TwoFactorSetupResponse {
  @ApiProperty({ description: 'base32, for typing into an app that cannot scan' }) secret: string;
  @ApiProperty({ description: 'otpauth:// URI, drawn as a QR code' }) otpauth_uri: string;
}

export class RecoveryCodesResponse {
  @ApiProperty({ type: [String], description: 'shown once; each signs in once instead of a code' })
  recovery_codes: string[];
}

export class TwoFactorPolicyResponse {
  @ApiProperty({ enum: TWO_FACTOR_REQUIREMENTS }) required_for: TwoFactorRequirement;
}
