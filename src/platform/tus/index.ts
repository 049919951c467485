import { readFileSync } from 'node:fs';
import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';

/** The file header-validator.ts loads past the package's index. */
const VALIDATOR = 'dist/validators/HeaderValidator.js';

const headerValidator: Piece<'app'> = {
  name: '@tus/server header validator (deep import)',
  changes: "calls tus's validateHeader, which the package index does not export, before tus.handle()",
  why: "a bad tus header is refused as the relay's { error } JSON with the route's status, not tus's plain text (docs/builds.md \"Resumable uploads\")",
  checkedAgainst: { '@tus/server': '1.10.2' },
  phase: 'app',
  fingerprint: () => sha256Of([readFileSync(packageFile('@tus/server', VALIDATOR), 'utf8')]),
  expected: ['373237489c9acd5a9a9ef59117c9d4bfc63139a006658116466a60a79b35c7de'],
};

export const pieces = [headerValidator];
