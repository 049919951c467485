import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The relay's version, from package.json (two levels up from both src/ and dist/). */
export const RELAY_VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
})();
