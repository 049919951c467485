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
  'CFBundlePackageType',
  'DTPlatformName',
  'LSMinimumSystemVersion',
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

/**
 * Build metadata plus the icon file base names the plist declares (`AppIcon60x60`), best first, and
 * what says which bundle this is (app-choice.ts decides from them).
 */
export interface BundleInfo {
  metadata: BuildMetadata;
  iconNames: string[];
  /** `CFBundlePackageType`: APPL for an app, FMWK, BNDL (.xctest), XPC! (extension)… */
  packageType: string | null;
  /** `CFBundleSupportedPlatforms` and `DTPlatformName` (`iPhoneSimulator`, `iphoneos`, `MacOSX`…). */
  platforms: string[];
  /** `LSMinimumSystemVersion`: only macOS apps declare it. */
  macOsMinimum: string | null;
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

/** One Info.plist to read, and the `.app` folder it came from (`Foo.app`): the name when the plist names none. */
export interface BundlePlist {
  bytes: Buffer;
  bundleFolder?: string;
}

/**
 * Reads an app bundle's Info.plist (XML or binary) into build metadata. `bundleFolder` is the name
 * of the `.app` folder it came from (`Foo.app`): the name when the plist names none.
 */
export async function readInfoPlist(bytes: Buffer, bundleFolder?: string): Promise<BuildMetadata> {
  return (await readBundleInfo(bytes, bundleFolder)).metadata;
}

export async function readBundleInfo(bytes: Buffer, bundleFolder?: string): Promise<BundleInfo> {
  return (await readBundleInfos([{ bytes, bundleFolder }]))[0];
}

/** Several Info.plists (an archive's candidate apps) in one worker, under one deadline and heap cap. */
export async function readBundleInfos(plists: BundlePlist[]): Promise<BundleInfo[]> {
  const jobs = plists.map(({ bytes }) => {
    const isBinary = bytes.subarray(0, 8).toString('latin1') === 'bplist00';
    const xml = isBinary ? null : xmlText(bytes);
    if (xml !== null) refuseUnsafeXml(xml);
    return { bytes: xml === null ? bytes : Buffer.alloc(0), xml };
  });
  const parsed = await parseInWorker(jobs);
  return parsed.map((values, i) => bundleInfoOf(values, plists[i].bundleFolder));
}

function bundleInfoOf({ values, iconNames, platforms, details }: ParsedPlist, bundleFolder?: string): BundleInfo {
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
    packageType: cleanMetadataString(values.CFBundlePackageType),
    platforms: [...(platforms ?? []), values.DTPlatformName].flatMap((p) => cleanMetadataString(p) ?? []),
    macOsMinimum: cleanMetadataString(values.LSMinimumSystemVersion),
    executable: executable && isSafeIconName(executable) ? executable : null,
    details: details ?? NO_DETAILS,
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

interface ParsedPlist {
  values: InfoValues;
  iconNames?: string[];
  platforms?: string[];
  details?: PlistDetails;
}

const NO_DETAILS: PlistDetails = { minimumOs: null, requiredDeviceCapabilities: [], usageDescriptions: {}, urlSchemes: [] };

function parseInWorker(jobs: Array<{ bytes: Buffer; xml: string | null }>): Promise<ParsedPlist[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, {
      workerData: { jobs, keys: KEYS },
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
      // 'online' and the answer come over different ports: a quick parse may be settled already, and a
      // deadline set then would only hold the process open for its 2 s.
      if (settled) return;
      timer = setTimeout(
        () => settle(() => reject(new MalformedBuildError('Info.plist is too complex to read'))),
        PARSE_TIME_LIMIT_MS,
      );
    });
    worker.on('message', (msg: { ok: boolean; results?: ParsedPlist[]; message?: string }) =>
      settle(() =>
        msg.ok && msg.results?.length === jobs.length
          ? resolve(msg.results)
          : reject(new MalformedBuildError(`Info.plist cannot be read (${msg.message})`)),
      ),
    );
    worker.on('error', (err) => settle(() => reject(new MalformedBuildError(`Info.plist cannot be read (${err.message})`))));
    worker.on('exit', () => settle(() => reject(new MalformedBuildError('Info.plist cannot be read'))));
  });
}
