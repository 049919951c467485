import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FORGE_TYPES, type ForgeType } from '../../config/forge-config';
import { ContextField, ForgeTypeField, ForgeUrlField, GitHubIdField, MAX_PRIVATE_KEY_LENGTH, MAX_TOKEN_LENGTH, RepositoriesField, SecretField } from './forge-fields';

/** POST /forges: a token, or (GitHub only) a GitHub App's app_id, installation_id and private_key. */
export class CreateForgeDto {
  @ApiProperty({ enum: FORGE_TYPES })
  @ForgeTypeField()
  type: ForgeType;

  @ApiProperty({ description: 'the API base URL', example: 'https://ghe.example.com/api/v3' })
  @ForgeUrlField(false)
  url: string;

  @ApiProperty({ type: [String], example: ['acme/app'], description: 'each served by no other forge (409 otherwise)' })
  @RepositoriesField(false)
  repositories: string[];

  @ApiPropertyOptional({ description: 'default `svc/review` (with an App: `svc / review`)' })
  @ContextField()
  context?: string;

  @ApiPropertyOptional({ description: 'write-only: kept encrypted, never returned', maxLength: MAX_TOKEN_LENGTH })
  @SecretField('token', MAX_TOKEN_LENGTH)
  token?: string;

  @ApiPropertyOptional({ example: '123' })
  @GitHubIdField('app_id')
  app_id?: string;

  @ApiPropertyOptional({ example: '456' })
  @GitHubIdField('installation_id')
  installation_id?: string;

  @ApiPropertyOptional({ description: "the App's PEM private key; write-only: kept encrypted, never returned", maxLength: MAX_PRIVATE_KEY_LENGTH })
  @SecretField('private_key', MAX_PRIVATE_KEY_LENGTH)
  private_key?: string;
}
