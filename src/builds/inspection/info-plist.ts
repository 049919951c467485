import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BuildMetadata, cleanMetadataString } from './build-metadata';
import { MalformedBuildError } from './malformed-build.error';

/** Info.plist keys we read, as strings. */
const KEYS = [
  'CFBundleIdentifier',
  'CFBundleShortVersionString',
  'CFBundleVersion',
  'CFBundleDisplayName',
  'CFBundleName',
  'CFBundleExecutable',
] as const;
type InfoValues = Partial<Record<(typeof KEYS)[number], string>>;

/** A plist that takes longer than this to parse is refused (cyclic or exploding object graphs). */
const PARSE_TIME_LIMIT_MS = 2000;
/** Heap a parse may use before the worker is stopped. */
const PARSE_HEAP_MB = 64;

/**
 * Parsing runs in a short-lived worker thread (plist-worker.js) with a heap cap and a deadline:
 * plist parsers (`bplist-parser` for binary, `plist` for XML) trust object counts and references,
 * so a hostile Info.plist could otherwise spin or exhaust the relay's memory. The worker returns
 * only strings.
 */
const WORKER_FILE = join(__dirname, 'plist-worker.js');

/** Build metadata plus the icon file base names the plist declares (`AppIcon60x60`), best first. */
export interface BundleInfo {
  metadata: BuildMetadata;
  iconNames: string[];
  /** The bundle's executable file name (CFBundleExecutable), when it names one. */
  executable: string | null;
  details: PlistDetails;
}

/** Info.plist values a build's contents show (plist-worker.js reads them, bounded). */
export interface PlistDetails {
  minimumOs: string | null;
  requiredDeviceCapabilities: string[];
  usageDescriptions: Record<string, string>;
  urlSchemes: string[];
}

/**
 * Reads an app bundle's Info.plist (XML or binary) into build metadata. `bundleFolder` is the name
 * of the `.app` folder it came from (`Foo.app`): the name when the plist names none.
 */
export async function readInfoPlist(bytes: Buffer, bundleFolder?: string): Promise<BuildMetadata> {
  return (await readBundleInfo(bytes, bundleFolder)).metadata;
}

export async function readBundleInfo(bytes: Buffer, bundleFolder?: string): Promise<BundleInfo> {
  const isBinary = bytes.subarray(0, 8).toString('latin1') === 'bplist00';
  const xml = isBinary ? null : xmlText(bytes);
  if (xml !== null) refuseUnsafeXml(xml);
  const { values, iconNames, details } = await parseInWorker(bytes, xml);
  const bundleId = cleanMetadataString(values.CFBundleIdentifier);
  if (!bundleId) throw new MalformedBuildError('Info.plist has no CFBundleIdentifier');
  const folderName = bundleFolder && cleanMetadataString(bundleFolder.replace(/\.app$/i, ''));
  const metadata: BuildMetadata = {
    platform: 'ios',
    bundleId,
    name:
      cleanMetadataString(values.CFBundleDisplayName) ??
      cleanMetadataString(values.CFBundleName) ??
      folderName ??
      bundleId,
    versionName: cleanMetadataString(values.CFBundleShortVersionString),
    buildNumber: cleanMetadataString(values.CFBundleVersion),
  };
  const executable = values.CFBundleExecutable ?? null;
  return {
    metadata,
    iconNames: (iconNames ?? []).filter(isSafeIconName),
    executable: executable && isSafeIconName(executable) ? executable : null,
    details,
  };
}

/** A base name within the bundle folder (an icon, the executable): no path separators, no `..`. */
function isSafeIconName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= 200 && !/[/\\\0]/.test(name) && name !== '.' && name !== '..';
}

/**
 * The text of an XML plist: UTF-8 (a byte-order mark, which editors add, is dropped), or UTF-16 when
 * it starts with a UTF-16 byte-order mark (`plutil` and older tools can write that).
 */
function xmlText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2, bytes.length & ~1).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, bytes.length & ~1));
    return swapped.swap16().toString('utf16le');
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** No DTD, no entities: an Info.plist never needs them, and they are how XML bombs and external fetches start. */
function refuseUnsafeXml(text: string): void {
  if (/<!ENTITY/i.test(text) || /<!DOCTYPE[^>]*\[/i.test(text)) {
    throw new MalformedBuildError('Info.plist declares XML entities, which are not allowed');
  }
  if (!/<plist[\s>]/.test(text)) throw new MalformedBuildError('Info.plist is neither an XML nor a binary property list');
}

const NO_DETAILS: PlistDetails = { minimumOs: null, requiredDeviceCapabilities: [], usageDescriptions: {}, urlSchemes: [] };

function parseInWorker(bytes: Buffer, xml: string | null): Promise<{ values: InfoValues; iconNames: string[]; details: PlistDetails }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, {
      workerData: { bytes: xml === null ? bytes : Buffer.alloc(0), xml, keys: KEYS },
      resourceLimits: { maxOldGenerationSizeMb: PARSE_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    // The deadline bounds the parse, not the thread's start: on a busy machine starting a worker
    // alone can take seconds, and a legal plist must not be refused for it.
    worker.once('online', () => {
      timer = setTimeout(
        () => settle(() => reject(new MalformedBuildError('Info.plist is too complex to read'))),
        PARSE_TIME_LIMIT_MS,
      );
    });
    worker.on('message', (msg: { ok: boolean; values?: InfoValues; iconNames?: string[]; details?: PlistDetails; message?: string }) =>
      settle(() =>
        msg.ok
          ? resolve({ values: msg.values ?? {}, iconNames: msg.iconNames ?? [], details: msg.details ?? NO_DETAILS })
          : reject(new MalformedBuildError(`Info.plist cannot be read (${msg.message})`)),
      ),
    );
    worker.on('error', (err) => settle(() => reject(new MalformedBuildError(`Info.plist cannot be read (${err.message})`))));
    worker.on('exit', () => settle(() => reject(new MalformedBuildError('Info.plist cannot be read'))));
  });
}
