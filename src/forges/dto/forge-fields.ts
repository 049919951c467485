import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { Transform } from 'class-transformer';
import { FORGE_TYPES } from '../../config/forge-config';
import { Trim } from '../../common/validation/transforms';
import { MAX_WEBHOOK_URL_LENGTH } from '../../webhooks/destination/destination-guard';

export const MAX_FORGE_REPOSITORIES = 100;
export const MAX_TOKEN_LENGTH = 4096;
/** A 4096-bit RSA key in PEM is about 3.3 KB; room for comments and CRLFs. */
export const MAX_PRIVATE_KEY_LENGTH = 16_384;
/** The `repository` upload field's shape (owner/name, GitLab groups/subgroups/name). */
const REPOSITORY = /^[^/\s]+(\/[^/\s]+)+$/;

/** Absent is "not given" (PATCH leaves it alone); null is refused like a wrong type. */
const Given = () => ValidateIf((_, value) => value !== undefined);

export const ForgeTypeField = () => applyDecorators(IsIn(FORGE_TYPES as string[], { message: `type must be one of ${FORGE_TYPES.join(', ')}` }));

/** `optional`: PATCH (absent leaves it alone); POST requires it. */
export const ForgeUrlField = (optional: boolean) =>
  applyDecorators(
    ...(optional ? [Given()] : []),
    Trim(),
    IsString({ message: 'url must be the http(s) URL of the forge API' }),
    IsNotEmpty({ message: 'url must be the http(s) URL of the forge API' }),
    MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` }),
  );

export const RepositoriesField = (optional: boolean) =>
  applyDecorators(
    ...(optional ? [Given()] : []),
    IsArray({ message: 'repositories must be an array of "owner/name"' }),
    ArrayMinSize(1, { message: 'repositories must list at least one "owner/name"' }),
    ArrayMaxSize(MAX_FORGE_REPOSITORIES, { message: `repositories must list at most ${MAX_FORGE_REPOSITORIES}` }),
    IsString({ each: true, message: 'repositories must be an array of "owner/name"' }),
    MaxLength(200, { each: true, message: 'each repository must be at most 200 characters' }),
    Matches(REPOSITORY, { each: true, message: 'each repository must be "owner/name" (GitLab: "group/subgroup/name")' }),
  );

export const ContextField = () =>
  applyDecorators(
    Given(),
    Trim(),
    IsString({ message: 'context must be a string of 1 to 100 characters' }),
    IsNotEmpty({ message: 'context must be a string of 1 to 100 characters' }),
    MaxLength(100, { message: 'context must be a string of 1 to 100 characters' }),
  );

/** A secret: kept as sent (no trimming inside), never returned. */
export const SecretField = (name: string, max: number) =>
  applyDecorators(
    Given(),
    Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)),
    IsString({ message: `${name} must be a non-empty string` }),
    IsNotEmpty({ message: `${name} must be a non-empty string` }),
    MaxLength(max, { message: `${name} must be at most ${max} characters` }),
  );

/** GitHub's App and installation ids: positive integers, sent as numbers or strings. */
export const GitHubIdField = (name: string) =>
  applyDecorators(
    Given(),
    Transform(({ value }) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value)),
    IsString({ message: `${name} must be a positive integer` }),
    Matches(/^[1-9]\d{0,17}$/, { message: `${name} must be a positive integer` }),
  );
