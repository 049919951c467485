#!/usr/bin/env node
// `npm start` runs this first: compiles src/ into dist/ when dist is missing or older than any source
// file, and builds the dashboard (web/ → web/dist, Vite) when web/dist is missing or older than any
// file of web/. bin/svc.js calls buildIfNeeded() (the relay only), logging to stderr so the CLI's
// stdout stays machine-readable. `node scripts/build-if-needed.js web` builds only the dashboard
// (npm test, before the browser tests).
const { existsSync, readdirSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { execFileSync } = require('node:child_process');

const root = join(__dirname, '..');
const built = join(root, 'dist', 'main.js');
const webRoot = join(root, 'web');
const webBuilt = join(webRoot, 'dist', 'index.html');

function newestMtime(dir, skip = new Set()) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (skip.has(full)) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full, skip) : statSync(full).mtimeMs);
  }
  return newest;
}

function staleAgainst(output, sourceTimes) {
  if (!existsSync(output)) return true;
  const builtAt = statSync(output).mtimeMs;
  return sourceTimes.some((time) => time > builtAt);
}

function run(script, args, log, env = process.env) {
  execFileSync(process.execPath, [script, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', log === process.stderr ? 2 : 'inherit', 'inherit'],
  });
}

function buildIfNeeded({ log = process.stdout } = {}) {
  const stale = staleAgainst(built, [newestMtime(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs]);
  if (!stale) return;
  log.write('svc relay: building (first start or sources changed)…\n');
  run(require.resolve('@nestjs/cli/bin/nest.js'), ['build'], log);
}

/**
 * The dashboard, when its sources (or the lock file, i.e. its dependencies) changed since the last
 * build. Without Vite (an install without devDependencies) nothing is built: the relay still runs
 * and its `/` says the dashboard is not built.
 */
function buildWebIfNeeded({ log = process.stdout } = {}) {
  if (!existsSync(webRoot)) return;
  const sources = [
    newestMtime(webRoot, new Set([join(webRoot, 'dist')])),
    statSync(join(root, 'package-lock.json')).mtimeMs,
  ];
  if (!staleAgainst(webBuilt, sources)) return;
  let vite;
  try {
    // vite's `exports` hide bin/: find the package, then its CLI.
    vite = join(dirname(require.resolve('vite/package.json', { paths: [root] })), 'bin', 'vite.js');
  } catch {
    log.write('svc relay: the dashboard is not built and Vite is not installed (npm ci installs it); starting without it\n');
    return;
  }
  log.write('svc relay: building the dashboard (first start or web/ changed)…\n');
  // Always the production build: under jest (NODE_ENV=test, the browser tests build it this way)
  // Vite would otherwise bundle React's development build (larger, slower, and not what ships).
  run(vite, ['build', '--config', join('web', 'vite.config.mts'), '--logLevel', 'warn'], log, { ...process.env, NODE_ENV: 'production' });
}

module.exports = { buildIfNeeded, buildWebIfNeeded };

if (require.main === module) {
  const only = process.argv[2];
  if (only !== 'web') buildIfNeeded();
  if (only !== 'relay') buildWebIfNeeded();
}
