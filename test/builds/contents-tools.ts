import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';

/**
 * What the Android SDK's own tools (Debian's aapt, apksigner; keytool from the JDK) and python's
 * zipfile say about an archive: the yardsticks of test/builds/contents.e2e-spec.ts.
 */
export function missingTool(...tools: string[]): string | null {
  const missing = tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  return missing.length ? `${missing.join(', ')} not installed (apt-get install -y aapt apksigner; keytool comes with Java)` : null;
}

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20 });

/** `aapt dump badging`: SDK levels and declared features (not the implied ones). */
export function aaptBadging(apk: string): { minSdk: string | null; targetSdk: string | null; features: { name: string; required: boolean }[] } {
  const text = run('aapt', ['dump', 'badging', apk]);
  const implied = new Set([...text.matchAll(/^\s*uses-implied-feature: name='([^']+)'/gm)].map((m) => m[1]));
  const features = [...text.matchAll(/^\s*uses-feature(-not-required)?: name='([^']+)'/gm)]
    .filter((m) => !implied.has(m[2]))
    .map((m) => ({ name: m[2], required: !m[1] }));
  return {
    minSdk: /^sdkVersion:'([^']*)'/m.exec(text)?.[1] ?? null,
    targetSdk: /^targetSdkVersion:'([^']*)'/m.exec(text)?.[1] ?? null,
    features,
  };
}

/** `aapt dump permissions`: the uses-permission names, in order. */
export function aaptPermissions(apk: string): string[] {
  return [...run('aapt', ['dump', 'permissions', apk]).matchAll(/^uses-permission(?:-sdk-23)?: name='([^']+)'/gm)].map((m) => m[1]);
}

/**
 * `apksigner verify --print-certs -v`: the schemes present, first signer's certificate digest and DN.
 * apksigner reports v1 as not verified when the APK's minSdk does not need it (24+) even where the
 * JAR signature is there, so v1 is taken from keytool, which reads exactly that signature.
 */
export function apksignerCerts(apk: string): { schemes: string[]; sha256: string; subject: string } {
  const text = run('apksigner', ['verify', '--print-certs', '-v', apk]);
  const v2v3 = [...text.matchAll(/^Verified using (v[23]) scheme.*: true$/gm)].map((m) => m[1]);
  return {
    schemes: [...(keytoolSha256(apk) ? ['v1'] : []), ...v2v3],
    sha256: /^Signer #1 certificate SHA-256 digest: ([0-9a-f]+)$/m.exec(text)![1],
    subject: /^Signer #1 certificate DN: (.*)$/m.exec(text)![1],
  };
}

/** `keytool -printcert -jarfile` (reads the v1 signature): the first certificate's SHA-256 as lowercase hex, null when unsigned. */
export function keytoolSha256(apk: string): string | null {
  const text = run('keytool', ['-printcert', '-jarfile', apk]);
  return /SHA256: ([0-9A-F:]+)/.exec(text)?.[1].replace(/:/g, '').toLowerCase() ?? null;
}

/** Python's zipfile: count and byte sums of the file entries. */
export function zipTotals(archive: string): { count: number; compressed: number; uncompressed: number } {
  const script =
    'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nf=[i for i in z.infolist() if not i.filename.endswith("/")]\n' +
    'print(json.dumps({"count":len(f),"compressed":sum(i.compress_size for i in f),"uncompressed":sum(i.file_size for i in f)}))';
  return JSON.parse(run('python3', ['-c', script, archive]));
}

/** An APK shipped in an npm package installed under an alias (package.json devDependencies). */
export function npmApk(alias: string, file: string): string {
  return join(dirname(require.resolve(`${alias}/package.json`)), 'apks', file);
}
