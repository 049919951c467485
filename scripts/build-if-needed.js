#!/usr/bin/env node
// `npm start` runs this first: compiles src/ into dist/ when dist is missing or older than any source file.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
const built = join(root, 'dist', 'main.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const stale =
  !existsSync(built) ||
  newestMtime(join(root, 'src')) > statSync(built).mtimeMs ||
  statSync(join(root, 'package.json')).mtimeMs > statSync(built).mtimeMs;
if (stale) {
  process.stdout.write('svc relay: building (first start or sources changed)…\n');
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], { cwd: root, stdio: 'inherit' });
}
