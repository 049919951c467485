#!/usr/bin/env node
// `npm start` runs this first: compiles src/ into dist/ when dist is missing or older than any source file.
// bin/svc.js calls buildIfNeeded() too, logging to stderr so the CLI's stdout stays machine-readable.
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

function buildIfNeeded({ log = process.stdout } = {}) {
  const stale =
    !existsSync(built) ||
    newestMtime(join(root, 'src')) > statSync(built).mtimeMs ||
    statSync(join(root, 'package.json')).mtimeMs > statSync(built).mtimeMs;
  if (!stale) return;
  log.write('svc relay: building (first start or sources changed)…\n');
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', log === process.stderr ? 2 : 'inherit', 'inherit'],
  });
}

module.exports = { buildIfNeeded };

if (require.main === module) buildIfNeeded();
