// The CLI package ships one file: the client commands and commander bundled together, so installing
// the tarball needs no registry and nothing of the relay can come along (what client-main.ts reaches
// stays in src/cli and src/relay-client: the import rule `cli-package-client-only` in
// .dependency-cruiser.cjs, checked by npm test).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const here = dirname(fileURLToPath(import.meta.url));
// commander's `exports` hide package.json: find its entry, then the LICENSE beside it.
const commanderLicense = readFileSync(join(dirname(createRequire(import.meta.url).resolve('commander')), 'LICENSE'), 'utf8');

export default defineConfig({
  input: join(here, '..', '..', 'src', 'cli', 'client-main.ts'),
  platform: 'node',
  output: {
    file: join(here, 'dist', 'svc.js'),
    format: 'cjs',
    banner: `/*! svc CLI. Includes commander (https://github.com/tj/commander.js):\n${commanderLicense.replace(/\*\//g, '* /')}*/`,
  },
});
