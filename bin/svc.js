#!/usr/bin/env node
'use strict';
// The `svc` command. Runs the compiled CLI from dist/, compiling first when dist/ is missing or older
// than src/ (a fresh clone after `npm ci`, or after a pull). An installed copy without src/ runs dist/
// as it is. SVC_CLI_FROM_SOURCE=1 runs src/ through ts-node instead (tests, development).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

// `svc relay` becomes the relay: the engine room's 'boot' pieces first, before the build check and the
// CLI's modules (src/bootstrap/boot-process.ts: V8 settles what they set while the first modules load).
// On a first run with no dist/ yet they come after the build, later than they should.
const bootPieces = join(root, 'dist', 'bootstrap', 'boot-process.js');
const becomesRelay = process.argv.slice(2).find((arg) => !arg.startsWith('-')) === 'relay';
const booted = becomesRelay && existsSync(bootPieces);
if (booted) require(bootPieces).bootRelayProcess();

if (process.env.SVC_CLI_FROM_SOURCE === '1') {
  require('ts-node').register({ transpileOnly: true, project: join(root, 'tsconfig.json') });
  require(join(root, 'src', 'cli', 'main.ts')).runCli(process.argv);
} else {
  if (existsSync(join(root, 'src'))) {
    // Builds output go to stderr so `svc … --json` keeps stdout machine-readable.
    require(join(root, 'scripts', 'build-if-needed.js')).buildIfNeeded({ log: process.stderr });
  }
  if (becomesRelay && !booted) require(bootPieces).bootRelayProcess();
  require(join(root, 'dist', 'cli', 'main.js')).runCli(process.argv);
}
