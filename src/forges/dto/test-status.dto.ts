import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { COMMIT_PATTERN } from '../../builds/dto/upload-build.dto';

/** POST /forges/:index/test: where to post the test status. */
export class TestStatusDto {
  @ApiProperty({ description: 'one of the forge\'s repositories', example: 'acme/app' })
  @MaxLength(200, { message: 'repository must be at most 200 characters' })
  @IsString({ message: 'repository must be a string' })
  repository: string;

  @ApiProperty({ description: 'a full commit SHA of that repository' })
  @Matches(COMMIT_PATTERN, { message: 'commit must be a full commit SHA (40 or 64 hexadecimal characters)' })
  @IsString({ message: 'commit must be a string' })
  commit: string;
}

/** The one attempt a test status made. */
export class TestStatusResult {
  @ApiProperty()
  ok: boolean;
  @ApiProperty({ type: Number, nullable: true })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty({ description: 'the context posted: `<context>/test`, never the one branch protection requires' })
  context: string;
}
