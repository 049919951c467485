#!/usr/bin/env node
'use strict';
// The `svc` command. Runs the compiled CLI from dist/, compiling first when dist/ is missing or older
// than src/ (a fresh clone after `npm ci`, or after a pull). An installed copy without src/ runs dist/
// as it is. SVC_CLI_FROM_SOURCE=1 runs src/ through ts-node instead (tests, development).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

if (process.env.SVC_CLI_FROM_SOURCE === '1') {
  require('ts-node').register({ transpileOnly: true, project: join(root, 'tsconfig.json') });
  require(join(root, 'src', 'cli', 'main.ts')).runCli(process.argv);
} else {
  if (existsSync(join(root, 'src'))) {
    // Builds output go to stderr so `svc … --json` keeps stdout machine-readable.
    require(join(root, 'scripts', 'build-if-needed.js')).buildIfNeeded({ log: process.stderr });
  }
  require(join(root, 'dist', 'cli', 'main.js')).runCli(process.argv);
}
