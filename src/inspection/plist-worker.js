// @ts-check
'use strict';
/**
 * The Info.plist parser's thread (started by info-plist.ts with a heap cap and a deadline): parses
 * the plists of one archive (its candidate app bundles) and posts back, for each, only the string
 * values of the keys it was asked for, the icon file base names and the supported platforms it declares,
 * and the bounded details a build's contents show (minimum OS, capabilities, usage descriptions, URL schemes).
 *
 * Plain JavaScript, type-checked (`// @ts-check`; part of `npm run typecheck`), because it must run
 * as it is both from the sources (tests) and from dist/ (copied there as a Nest asset), with no
 * TypeScript loader in the thread, and because the ESM-only `plist` package needs a native
 * `import()`, which TypeScript's CommonJS output would rewrite into a failing `require()`.
 */
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { parentPort, workerData } = require('node:worker_threads');

/**
 * @typedef {object} PlistJob
 * @property {Uint8Array} bytes the binary plist (empty for XML)
 * @property {string | null} xml the XML plist's text, or null for a binary one
 */
/**
 * @typedef {object} PlistDetails what the build's contents show (docs/builds.md "Contents and comparison")
 * @property {string | null} minimumOs
 * @property {string[]} requiredDeviceCapabilities
 * @property {Record<string, string>} usageDescriptions
 * @property {string[]} urlSchemes
 */
/** @typedef {{ jobs: PlistJob[], keys: readonly string[] }} PlistBatch */
/** @typedef {{ values: Record<string, string>, iconNames: string[], platforms: string[], details: PlistDetails }} PlistValues */
/** @typedef {{ ok: true, results: PlistValues[] } | { ok: false, message: string }} PlistAnswer */

/** Longest list or text kept of any of the details (a hostile plist can hold millions). */
const MAX_ITEMS = 200;
const MAX_TEXT = 1000;

/** @param {PlistJob} job @returns {Promise<unknown>} */
async function parseRoot(job) {
  if (job.xml === null) return require('bplist-parser').parseBuffer(Buffer.from(job.bytes))[0];
  /** @type {{ parse: (xml: string) => unknown }} */
  const plist = await import(plistEntryUrl());
  return plist.parse(job.xml);
}

/**
 * `plist` exports only an `import` condition, so require.resolve() cannot name it: look for its
 * folder along the paths require itself searches (node_modules upward, NODE_PATH) and import its
 * declared entry by file URL.
 * @returns {string}
 */
function plistEntryUrl() {
  for (const dir of require.resolve.paths('plist') ?? []) {
    const manifest = join(dir, 'plist', 'package.json');
    if (!existsSync(manifest)) continue;
    const entry = JSON.parse(readFileSync(manifest, 'utf8')).exports?.['.']?.import?.default ?? './dist/index.js';
    return pathToFileURL(join(dir, 'plist', entry)).href;
  }
  throw new Error('the plist package is not installed');
}

/** @param {PlistJob} job @param {readonly string[]} keys @returns {Promise<PlistValues>} */
async function readValues(job, keys) {
  const root = await parseRoot(job);
  if (!root || typeof root !== 'object' || Array.isArray(root)) throw new Error('the top level is not a dictionary');
  const dict = /** @type {Record<string, unknown>} */ (root);
  /** @type {Record<string, string>} */
  const values = {};
  for (const key of keys) {
    const value = dict[key];
    if (typeof value === 'string' || typeof value === 'number') values[key] = String(value);
  }
  const supported = dict.CFBundleSupportedPlatforms;
  const platforms = Array.isArray(supported) ? supported.slice(0, 8).filter((p) => typeof p === 'string') : [];
  return { values, iconNames: iconNamesOf(dict), platforms, details: detailsOf(dict) };
}

/** @param {PlistBatch} batch @returns {Promise<PlistValues[]>} */
async function readAll(batch) {
  const results = [];
  for (const job of batch.jobs) results.push(await readValues(job, batch.keys));
  return results;
}

/** @param {unknown} v @returns {v is string} */
const isText = (v) => typeof v === 'string' && v.length > 0;
/** @param {unknown} v @returns {string[]} */
const texts = (v) => (Array.isArray(v) ? v.slice(0, MAX_ITEMS).filter(isText).map((t) => t.slice(0, MAX_TEXT)) : []);

/**
 * Minimum OS, required device capabilities (an array, or a dictionary of capability → required),
 * NS…UsageDescription texts and the URL schemes of CFBundleURLTypes.
 * @param {Record<string, unknown>} root @returns {PlistDetails}
 */
function detailsOf(root) {
  const caps = root.UIRequiredDeviceCapabilities;
  const requiredDeviceCapabilities =
    caps && typeof caps === 'object' && !Array.isArray(caps)
      ? Object.entries(caps).filter(([, required]) => required === true).map(([name]) => name).slice(0, MAX_ITEMS)
      : texts(caps);
  /** @type {Record<string, string>} */
  const usageDescriptions = {};
  for (const key of Object.keys(root).filter((k) => /^NS\w+UsageDescription$/.test(k)).slice(0, MAX_ITEMS)) {
    const text = root[key];
    if (typeof text === 'string') usageDescriptions[key] = text.slice(0, MAX_TEXT);
  }
  const types = Array.isArray(root.CFBundleURLTypes) ? root.CFBundleURLTypes.slice(0, MAX_ITEMS) : [];
  /** @type {string[]} */
  const urlSchemes = [];
  for (const type of types) {
    if (!type || typeof type !== 'object') continue;
    for (const scheme of texts(/** @type {Record<string, unknown>} */ (type).CFBundleURLSchemes)) {
      if (!urlSchemes.includes(scheme) && urlSchemes.length < MAX_ITEMS) urlSchemes.push(scheme);
    }
  }
  const minimumOs = isText(root.MinimumOSVersion) ? root.MinimumOSVersion.slice(0, 50) : null;
  return { minimumOs, requiredDeviceCapabilities, usageDescriptions, urlSchemes };
}

/**
 * Icon file base names: CFBundleIcons.CFBundlePrimaryIcon.CFBundleIconFiles (iOS 5+) and its
 * CFBundleIconName, then the older CFBundleIconFiles and CFBundleIconFile. At most 32, strings only.
 * @param {Record<string, unknown>} root @returns {string[]}
 */
function iconNamesOf(root) {
  /** @type {string[]} */
  const names = [];
  /** @param {unknown} v */
  const add = (v) => {
    if (typeof v === 'string' && v && names.length < 32) names.push(v);
  };
  /** @param {unknown} v */
  const addAll = (v) => {
    if (Array.isArray(v)) v.slice(0, 32).forEach(add);
  };
  const icons = /** @type {Record<string, unknown> | undefined} */ (root.CFBundleIcons);
  const primary = icons && typeof icons === 'object' ? /** @type {Record<string, unknown>} */ (icons.CFBundlePrimaryIcon) : undefined;
  if (primary && typeof primary === 'object') {
    addAll(primary.CFBundleIconFiles);
    add(primary.CFBundleIconName);
  }
  addAll(root.CFBundleIconFiles);
  add(root.CFBundleIconFile);
  return names;
}

/** @param {PlistAnswer} answer */
const answer = (answer) => parentPort?.postMessage(answer);

readAll(/** @type {PlistBatch} */ (workerData)).then(
  (results) => answer({ ok: true, results }),
  (err) => answer({ ok: false, message: String((err && err.message) || err) }),
);
