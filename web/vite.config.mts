import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside each text asset
 * over 1 KB, kept only when smaller: the relay sends the one the browser's Accept-Encoding prefers
 * (src/dashboard), so the highest levels cost build time once and no CPU per request.
 * index.html is left out: the relay fills in a fresh nonce per response (and it is under 1 KB).
 * The relay serves exactly these extensions' copies (PRECOMPRESSED in src/dashboard/dashboard.ts).
 */
function precompress(): Plugin {
  const TEXT = /\.(js|mjs|css|svg|json|txt|map|webmanifest)$/;
  const br = promisify(brotliCompress);
  const gz = promisify(gzip);
  let outDir = '';
  return {
    name: 'svc-precompress',
    apply: 'build',
    configResolved: (config) => void (outDir = resolve(config.root, config.build.outDir)),
    async closeBundle() {
      const names = (await readdir(outDir, { recursive: true })).filter((name) => TEXT.test(name));
      await Promise.all(
        names.map(async (name) => {
          const path = join(outDir, name);
          if ((await stat(path)).size <= 1024) return;
          const bytes = await readFile(path);
          const copies = {
            br: await br(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
            gz: await gz(bytes, { level: 9 }),
          };
          for (const [suffix, copy] of Object.entries(copies)) {
            if (copy.length < bytes.length) await writeFile(`${path}.${suffix}`, copy);
          }
        }),
      );
    },
  };
}

// The dashboard: built into web/dist (served by the relay at /), never touched by `nest build`.
// No inline script may end up in index.html (the CSP is `script-src 'self'`), so the module
// preload polyfill (an inline script) is off: every browser the dashboard supports has modulepreload.
export default defineConfig({
  root: here,
  base: '/',
  publicDir: 'public',
  plugins: [precompress()],
  // Replaced per response by the relay with a fresh nonce that its CSP's style-src allows
  // (src/dashboard): Radix's scroll lock injects a <style> element tagged with it (see main.tsx).
  html: { cspNonce: '__SVC_CSP_NONCE__' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    // Never turn small assets into data: URLs: the CSP allows images from 'self' and data:, but
    // fonts/scripts must stay files.
    assetsInlineLimit: 0,
    sourcemap: false,
    // The shell (React, the router, the query cache, Radix) in one file; each page a chunk of its
    // own (App.tsx loads them lazily), all cached for a year.
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      // Radix marks its modules "use client" (for server-component bundlers); meaningless in a SPA.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  // `vite preview` for working on the dashboard against a relay on :8080 (the Host header is kept,
  // so the relay's same-origin check accepts the browser's Origin).
  preview: {
    proxy: {
      '/api': { target: `http://127.0.0.1:${process.env.SVC_PORT ?? 8080}`, changeOrigin: false },
      '/uploads': { target: `http://127.0.0.1:${process.env.SVC_PORT ?? 8080}`, changeOrigin: false },
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    root: here,
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
