import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';

/** Optional; `null` or absent: every (app, build). */
function AudienceList(field: string, description: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], nullable: true, description }),
    IsOptional(),
    ValidateIf((_, v) => v !== null),
    IsArray({ message: `${field} must be an array of strings` }),
    ArrayMinSize(1, { message: `${field} must not be empty (null: every one)` }),
    ArrayMaxSize(50, { message: `${field} must hold at most 50 entries` }),
    IsString({ each: true, message: `${field} must be an array of strings` }),
    Length(1, 200, { each: true, message: `each of ${field} must be 1 to 200 characters` }),
  );
}

/** POST /integrations/chat/routes: a Slack channel (`channel`) or a Teams webhook (`name`, `url`), for some apps and branches. */
export class CreateChatRouteDto {
  @ApiProperty({ enum: ['slack', 'teams'] })
  @IsIn(['slack', 'teams'], { message: 'kind must be one of slack, teams' })
  kind: 'slack' | 'teams';

  @ApiPropertyOptional({ description: "Slack: the channel's id", example: 'C0123ABCD' })
  @ValidateIf((o: CreateChatRouteDto) => o.kind === 'slack')
  @Matches(/^[A-Z0-9]{2,30}$/, { message: 'channel must be a Slack channel id such as C0123ABCD' })
  channel?: string;

  @ApiPropertyOptional({ description: 'Teams: what the deliveries call it (teams:<name>)', example: 'qa' })
  @ValidateIf((o: CreateChatRouteDto) => o.kind === 'teams')
  @Matches(/^[a-z0-9][a-z0-9-]{0,39}$/, { message: 'name must be lower-case letters, digits and dashes, at most 40' })
  name?: string;

  @ApiPropertyOptional({ description: 'Teams: the Workflows or incoming-webhook URL; write-only: kept encrypted, never returned' })
  @ValidateIf((o: CreateChatRouteDto) => o.kind === 'teams')
  @IsString({ message: 'url must be the https:// URL of the Teams webhook' })
  @Matches(/^https?:\/\/[^\s/]+/i, { message: 'url must be the https:// URL of the Teams webhook' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  url?: string;

  @AudienceList('apps', 'bundle ids; null or absent: every app')
  apps?: string[] | null;

  @AudienceList('branches', 'only builds from these branches; null or absent: every build')
  branches?: string[] | null;
}
