import { readFileSync } from 'node:fs';
import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';

/**
 * Not yet moved (issue 23 chunk 2 replaces or declares it): registered here so the fences cover it
 * where it is installed today.
 */
const nativeBoundarySearch: Piece<'app'> = {
  name: 'busboy boundary search on Buffer.indexOf',
  changes:
    "replaces busboy Multipart's `_bparser` (streamsearch's SBMH, its fields read) with NativeBoundarySearch, and ends a part whose header block is ended by the closing delimiter with busboy's 'Malformed part header' instead of hanging",
  why: 'the JavaScript search was ~200 ms of the main thread per 500 MB upload (docs/decisions.md#item-37)',
  checkedAgainst: { busboy: '1.6.0', 'busboy > streamsearch': '1.1.0' },
  phase: 'app',
  fingerprint: () =>
    sha256Of([readFileSync(packageFile('busboy', 'lib/types/multipart.js'), 'utf8'), readFileSync(packageFile('busboy > streamsearch', 'lib/sbmh.js'), 'utf8')]),
  expected: ['a3d3be882bdad5d38101013e401fae8beb70aa56b0788b166045304cf78bc923'],
  notYetMoved: {
    files: ['src/common/multipart/native-boundary-search.ts', 'src/common/multipart/native-boundary-search.spec.ts'],
    installedFrom: 'MultipartReceiver, per request (useNativeBoundarySearch)',
  },
};

export const pieces = [nativeBoundarySearch];
