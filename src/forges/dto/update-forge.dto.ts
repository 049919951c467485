import { ApiPropertyOptional } from '@nestjs/swagger';
import { ContextField, ForgeUrlField, GitHubIdField, MAX_PRIVATE_KEY_LENGTH, MAX_TOKEN_LENGTH, RepositoriesField, SecretField } from './forge-fields';

/**
 * PATCH /forges/:id: only the fields sent change. A token switches the forge to a token (the App
 * is forgotten); App fields switch it to an App (all three needed unless it is one already).
 */
export class UpdateForgeDto {
  @ApiPropertyOptional()
  @ForgeUrlField(true)
  url?: string;

  @ApiPropertyOptional({ type: [String], description: 'replaces the list' })
  @RepositoriesField(true)
  repositories?: string[];

  @ApiPropertyOptional()
  @ContextField()
  context?: string;

  @ApiPropertyOptional({ description: 'write-only', maxLength: MAX_TOKEN_LENGTH })
  @SecretField('token', MAX_TOKEN_LENGTH)
  token?: string;

  @ApiPropertyOptional()
  @GitHubIdField('app_id')
  app_id?: string;

  @ApiPropertyOptional()
  @GitHubIdField('installation_id')
  installation_id?: string;

  @ApiPropertyOptional({ description: 'write-only', maxLength: MAX_PRIVATE_KEY_LENGTH })
  @SecretField('private_key', MAX_PRIVATE_KEY_LENGTH)
  private_key?: string;
}
