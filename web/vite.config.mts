import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));

// The dashboard: built into web/dist (served by the relay at /), never touched by `nest build`.
// No inline script may end up in index.html (the CSP is `script-src 'self'`), so the module
// preload polyfill (an inline script) is off: every browser the dashboard supports has modulepreload.
export default defineConfig({
  root: here,
  base: '/',
  publicDir: 'public',
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
    // React, the router, the query cache and Radix in one file; one request, cached for a year.
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
