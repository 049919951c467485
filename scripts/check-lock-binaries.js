#!/usr/bin/env node
// `npm test` runs this: fails when package-lock.json lost the Linux native packages the dashboard's
// bundler needs. npm can drop optional platform packages from a lock written on another OS
// (npm/cli#4828); `npm ci` on Linux then installs no binding and `vite build` fails at start-up,
// far from the change that caused it. Rolldown (Vite 8's bundler) and Lightning CSS (Vite's CSS
// minifier) each ship one binary package per platform; CI, Docker (bookworm, glibc) and Alpine
// (musl) on x64 and arm64 need theirs.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const LINUX_TARGETS = ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'linux-arm64-musl'];
const NATIVE_PACKAGES = [
  { parent: 'rolldown', binding: (target) => `@rolldown/binding-${target}` },
  { parent: 'lightningcss', binding: (target) => `lightningcss-${target}` },
];

/** The problems of a parsed lock file: missing or mismatched binding entries (empty when fine). */
function lockProblems(lock) {
  const packages = lock.packages ?? {};
  const problems = [];
  for (const { parent, binding } of NATIVE_PACKAGES) {
    const parentEntry = packages[`node_modules/${parent}`];
    if (!parentEntry) {
      problems.push(`${parent} is not in the lock file (is vite still a devDependency?)`);
      continue;
    }
    for (const target of LINUX_TARGETS) {
      const name = binding(target);
      const entry = packages[`node_modules/${name}`];
      const wanted = parentEntry.optionalDependencies?.[name];
      if (!wanted) problems.push(`${parent}@${parentEntry.version} no longer lists ${name}: update this check`);
      else if (!entry) problems.push(`${name} is missing (needed by ${parent}@${parentEntry.version})`);
      else if (entry.version !== wanted) problems.push(`${name} is ${entry.version}, ${parent} wants ${wanted}`);
      else if (!entry.integrity) problems.push(`${name} has no integrity hash`);
    }
  }
  return problems;
}

module.exports = { lockProblems };

if (require.main === module) {
  const path = process.argv[2] ?? join(__dirname, '..', 'package-lock.json');
  const problems = lockProblems(JSON.parse(readFileSync(path, 'utf8')));
  if (problems.length) {
    console.error(`package-lock.json lost native packages the dashboard build needs:\n  ${problems.join('\n  ')}`);
    console.error('Regenerate it on Linux (rm -rf node_modules && npm install), or add them back, and commit the lock.');
    process.exit(1);
  }
  console.log(`package-lock.json: Linux bindings of ${NATIVE_PACKAGES.map((p) => p.parent).join(' and ')} present`);
}
