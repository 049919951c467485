import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

/** POST /builds/:id/issues: "Report issue" from a build page, a live device session or a recording. */
export class ReportIssueDto {
  @ApiProperty({ example: 'jira', description: 'a tracker of svc.config.json `trackers` (its name)' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  tracker: string;

  @ApiProperty({ example: 'Checkout button does nothing on the second tap' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  title: string;

  @ApiPropertyOptional({ example: 'Tap Checkout twice: the second tap is ignored.' })
  @IsOptional()
  @IsString()
  @MaxLength(20000)
  description?: string;

  @ApiPropertyOptional({ description: 'the recording to attach a clip of (its id); else the session\'s newest recording, if any' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2147483647)
  recordingId?: number;

  @ApiPropertyOptional({ description: 'start of the clip, ms into the recording (default: 30 s before `to`)' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  from?: number;

  @ApiPropertyOptional({ description: 'end of the clip, ms into the recording (default: its end); the screenshot and UI tree are of this moment' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  to?: number;

  @ApiPropertyOptional({ description: 'the live device session it was seen on (device and OS are read from it)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  sessionId?: string;
}
