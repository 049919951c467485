import { HttpStatus } from '@nestjs/common';
import { DISPLAY_NAME_MAX } from '../users/users.service';
import { ScimError } from './scim-error';
import { PATCH_SCHEMA } from './scim-resources';
import type { ScimUserFields } from './scim-members.service';

/**
 * The bounds of what SCIM sends, the same as the rest of the API and the columns (issue 36):
 * anything longer is 400 `invalidValue` before it is stored. A group holds at most `groupMembers`
 * members (docs/identity.md "SCIM and the last active Admin"): the relay is a team's, a group's
 * GET answers every member at once, and each member's role is re-derived when the group changes.
 */
export const SCIM_LIMITS = {
  userName: 320,
  displayName: DISPLAY_NAME_MAX,
  externalId: 300,
  groupName: 300,
  path: 300,
  operations: 1000,
  groupMembers: 5000,
} as const;

/**
 * SCIM bodies are read here rather than by DTO classes: RFC 7643 resources carry attributes the
 * relay ignores (schemas, meta, phoneNumbers, enterprise extensions), names in any letter case, and
 * `"True"` strings from Entra ID, which the whitelisting ValidationPipe would strip or refuse.
 */
export function readUserBody(body: unknown): ScimUserFields {
  const o = object(body);
  const emails = Array.isArray(get(o, 'emails')) ? (get(o, 'emails') as unknown[]) : [];
  const primary = (emails.find((e) => isObject(e) && get(e, 'primary') === true) ?? emails[0]) as Record<string, unknown> | undefined;
  const name = isObject(get(o, 'name')) ? (get(o, 'name') as Record<string, unknown>) : {};
  const formatted = str(get(name, 'formatted')) ?? ([str(get(name, 'givenName')), str(get(name, 'familyName'))].filter(Boolean).join(' ') || undefined);
  const active = get(o, 'active');
  return {
    userName: bounded(str(get(o, 'userName')) ?? (primary ? str(get(primary, 'value')) : undefined), 'userName'),
    displayName: bounded(str(get(o, 'displayName')) ?? formatted, 'displayName'),
    externalId: bounded(str(get(o, 'externalId')), 'externalId'),
    active: active === undefined ? undefined : bool(active, 'active'),
  };
}

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string | null;
  value: unknown;
}

/** RFC 7644 §3.5.2: `{ schemas: [PatchOp], Operations: [{ op, path?, value? }] }`, op in any case. */
export function readPatchBody(body: unknown): PatchOperation[] {
  const o = object(body);
  const schemas = get(o, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA)) throw invalid(`schemas must include ${PATCH_SCHEMA}`, 'invalidSyntax');
  const operations = get(o, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) throw invalid('Operations must be a non-empty list', 'invalidSyntax');
  if (operations.length > SCIM_LIMITS.operations) throw invalid(`Operations has at most ${SCIM_LIMITS.operations} operations`, 'invalidValue');
  return operations.map((raw) => {
    const operation = object(raw);
    const op = String(get(operation, 'op') ?? '').toLowerCase();
    if (op !== 'add' && op !== 'remove' && op !== 'replace') throw invalid('op must be add, remove or replace', 'invalidSyntax');
    const path = get(operation, 'path');
    if (path !== undefined && (typeof path !== 'string' || path.length > SCIM_LIMITS.path)) {
      throw invalid(`path must be a string of at most ${SCIM_LIMITS.path} characters`, 'invalidPath');
    }
    return { op, path: (path as string | undefined) ?? null, value: get(operation, 'value') };
  });
}

/** A PATCH of a User as the fields it sets (the attributes the relay keeps; others are ignored). */
export function userPatchFields(operations: PatchOperation[]): ScimUserFields {
  const fields: ScimUserFields = {};
  for (const { op, path, value } of operations) {
    if (op === 'remove') {
      if (path && /^(displayName|name\.formatted)$/i.test(path)) fields.displayName = null;
      if (path && /^externalId$/i.test(path)) fields.externalId = null;
      continue;
    }
    const values: Record<string, unknown> = path ? { [path]: value } : isObject(value) ? (value as Record<string, unknown>) : {};
    for (const [key, v] of Object.entries(values)) {
      const k = key.toLowerCase();
      if (k === 'active') fields.active = bool(v, 'active');
      else if (k === 'username') fields.userName = str(v);
      else if (k === 'displayname' || k === 'name.formatted') fields.displayName = str(v) ?? null;
      else if (k === 'externalid') fields.externalId = str(v) ?? null;
      else if (k === 'name' && isObject(v)) fields.displayName = str(get(v, 'formatted')) ?? fields.displayName;
      else if (k.startsWith('emails')) {
        const first = Array.isArray(v) ? v[0] : v;
        const email = isObject(first) ? str(get(first, 'value')) : str(first);
        if (email) fields.userName = email;
      }
    }
  }
  return {
    ...fields,
    ...(fields.userName !== undefined ? { userName: bounded(fields.userName, 'userName') } : {}),
    ...(fields.displayName ? { displayName: bounded(fields.displayName, 'displayName') } : {}),
    ...(fields.externalId ? { externalId: bounded(fields.externalId, 'externalId') } : {}),
  };
}

/** A value of a bounded field (SCIM_LIMITS), trimmed; longer is 400 invalidValue. */
export function bounded<T extends string | undefined>(value: T, limit: keyof typeof SCIM_LIMITS, name: string = limit): T {
  const max = SCIM_LIMITS[limit];
  if (value !== undefined && value.length > max) throw invalid(`${name} must be at most ${max} characters`, 'invalidValue');
  return value;
}

function get(o: unknown, key: string): unknown {
  if (!isObject(o)) return undefined;
  const found = Object.keys(o as object).find((k) => k.toLowerCase() === key.toLowerCase());
  return found === undefined ? undefined : (o as Record<string, unknown>)[found];
}

function object(value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw invalid('The body must be a JSON object', 'invalidSyntax');
  return value as Record<string, unknown>;
}

function isObject(value: unknown): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function bool(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalid(`${name} must be true or false`, 'invalidValue');
}

function invalid(detail: string, scimType: string): ScimError {
  return new ScimError(HttpStatus.BAD_REQUEST, detail, scimType);
}

export { get as scimAttribute, str as scimString };
