import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsBoolean, IsEmail, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';

/** Optional; `null` clears it. */
function NullableName() {
  return applyDecorators(ApiPropertyOptional({ type: String, nullable: true }), IsOptional(), ValidateIf((_, v) => v !== null), IsString(), Length(1, 200));
}

/** Optional; `null`: every build. */
function Branches() {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], nullable: true, description: 'only builds from these branches; null or absent: every build' }),
    IsOptional(),
    ValidateIf((_, v) => v !== null),
    IsArray(),
    ArrayMaxSize(20),
    IsString({ each: true }),
    Length(1, 200, { each: true }),
  );
}

export class AddTesterDto {
  @ApiProperty({ example: 'tester@example.com' })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(320)
  email: string;

  @NullableName()
  name?: string | null;

  @Branches()
  branches?: string[] | null;

  @ApiPropertyOptional({ description: 'notified once a build is Done rather than when it is uploaded (absent: false)' })
  @IsOptional()
  @IsBoolean()
  only_done?: boolean;
}

export class UpdateTesterDto {
  @NullableName()
  name?: string | null;

  @Branches()
  branches?: string[] | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  only_done?: boolean;
}

export class CreateLatestLinkDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'the newest build of this branch; absent or null: of any branch' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 200)
  branch?: string | null;
}
