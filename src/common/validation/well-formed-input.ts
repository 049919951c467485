import type { NextFunction, Request, Response } from 'express';
import { badRequest } from '../errors/http-error';

/**
 * How deep a JSON body may nest. The API's deepest body is two levels; validation (class-transformer,
 * class-validator) recurses per level, so a body of 50,000 nested arrays would overflow the stack.
 */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP_MESSAGE = `JSON body nested too deeply (at most ${MAX_JSON_DEPTH} levels)`;

/** A UTF-16 surrogate that is not half of a pair: JSON can carry one (`"\ud800"`), UTF-8 cannot. */
const LONE_SURROGATE = /\p{Cs}/u;

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | number | null;
}

/**
 * Why a parsed input cannot be validated, or null when it can: nested deeper than MAX_JSON_DEPTH,
 * or a string (value or field name) holding a lone surrogate, which e-mail validators (`encodeURI`),
 * bcrypt, the database drivers and headers cannot take. Iterative, so any depth costs the same
 * small stack; stops at the first problem. The message names the field (`items[2].name`).
 */
export function malformedInputProblem(input: unknown, root = ''): string | null {
  const stack: Node[] = [{ value: input, depth: 0, parent: null, key: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return `${pathOf(node, root) || 'The body'} is not valid Unicode text (a lone UTF-16 surrogate)`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (node.depth >= MAX_JSON_DEPTH) return TOO_DEEP_MESSAGE;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: node.depth + 1, parent: node, key: i });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (LONE_SURROGATE.test(key)) return `A field name in ${pathOf(node, root) || 'the body'} is not valid Unicode text (a lone UTF-16 surrogate)`;
      stack.push({ value: (value as Record<string, unknown>)[key], depth: node.depth + 1, parent: node, key });
    }
  }
  return null;
}

function pathOf(node: Node, root: string): string {
  const parts: string[] = [];
  for (let at: Node | null = node; at && at.key !== null; at = at.parent) {
    parts.unshift(typeof at.key === 'number' ? `[${at.key}]` : `.${at.key}`);
  }
  return (root + parts.join('')).replace(/^\./, '');
}

/**
 * Express middleware right after the JSON parser: every JSON body on every route is held to
 * malformedInputProblem before any guard, pipe or handler sees it (400 with the message).
 */
export function rejectMalformedJson(req: Request, _res: Response, next: NextFunction): void {
  const problem = req.body !== undefined ? malformedInputProblem(req.body) : null;
  next(problem ? badRequest(problem) : undefined);
}
