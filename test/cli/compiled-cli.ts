import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

/**
 * The CLI compiled once per source state for the tests: every src/ file transpiled (no type check,
 * like ts-jest here) into a cache folder keyed by the sources' sizes and mtimes. Spawning compiled JS
 * starts in about a second instead of ts-node's several, and dist/ is never touched. The cache is
 * written to a temp name and renamed, so parallel workers never see half a build.
 */
export function compiledCliMain(repoRoot: string): string {
  const srcDir = join(repoRoot, 'src');
  const files = listFiles(srcDir, '.ts');
  const scripts = listFiles(srcDir, '.js');
  const key = createHash('sha256')
    .update([...files, ...scripts].map((f) => `${f}:${statSync(f).size}:${statSync(f).mtimeMs}`).join('\n'))
    .update(readFileSync(join(repoRoot, 'package.json')))
    .digest('hex')
    .slice(0, 16);
  const root = join(tmpdir(), `svc-cli-compiled-${key}`);
  const main = join(root, 'dist', 'cli', 'main.js');
  if (existsSync(main)) return main;

  const staging = `${root}.tmp-${process.pid}-${Date.now()}`;
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    allowSyntheticDefaultImports: true,
    resolveJsonModule: true,
  };
  for (const file of files) {
    if (file.endsWith('.spec.ts')) continue;
    const out = join(staging, 'dist', relative(srcDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file }).outputText);
  }
  // JavaScript in src/ (the plist worker) runs as it is, as nest build copies it (an asset).
  for (const file of scripts) {
    const out = join(staging, 'dist', relative(srcDir, file));
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(file, out);
  }
  // relay/relay-version.ts reads package.json two levels above dist/<module>/.
  copyFileSync(join(repoRoot, 'package.json'), join(staging, 'package.json'));
  try {
    renameSync(staging, root);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another worker finished first
  }
  return main;
}

function listFiles(dir: string, extension: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), extension) : e.name.endsWith(extension) ? [join(dir, e.name)] : []))
    .sort();
}
