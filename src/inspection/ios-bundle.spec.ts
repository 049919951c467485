import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { pack as tarPack } from 'tar-stream';
import { archiveTypeOf } from './archive-type';
import { readInfoPlist } from './info-plist';
import { bundlePlistDepth, readIosTarball } from './ios-bundle';
import { MalformedBuildError } from './malformed-build.error';
import { safeEntryName } from './zip-archive';

/** A binary plist whose objects are `arrays(i)` (lists of object refs), top object 0, 1-byte refs. */
function bplist(objects: number[][]): Buffer {
  const parts: Buffer[] = [Buffer.from('bplist00', 'latin1')];
  const offsets: number[] = [];
  let at = 8;
  for (const refs of objects) {
    offsets.push(at);
    const obj = Buffer.from([0xa0 | refs.length, ...refs]);
    parts.push(obj);
    at += obj.length;
  }
  const offsetTable = Buffer.from(offsets);
  const trailer = Buffer.alloc(32);
  trailer.writeUInt8(1, 6);
  trailer.writeUInt8(1, 7);
  trailer.writeBigUInt64BE(BigInt(objects.length), 8);
  trailer.writeBigUInt64BE(0n, 16);
  trailer.writeBigUInt64BE(BigInt(at), 24);
  return Buffer.concat([...parts, offsetTable, trailer]);
}

describe('iOS bundle reading', () => {
  it('finds only the bundle’s own Info.plist, at the root or one folder down', () => {
    expect(bundlePlistDepth('Demo.app/Info.plist')).toBe(0);
    expect(bundlePlistDepth('Products/Demo.app/Info.plist')).toBe(1);
    expect(bundlePlistDepth('Demo.app/PlugIns/W.appex/Info.plist')).toBeNull();
    expect(bundlePlistDepth('Demo.app/Watch/W.app/Info.plist')).toBeNull();
    expect(bundlePlistDepth('A.app/B.app/Info.plist')).toBeNull();
    expect(bundlePlistDepth('__MACOSX/Demo.app/Info.plist')).toBeNull();
    expect(bundlePlistDepth('a/b/Demo.app/Info.plist')).toBeNull();
  });

  it('ignores unsafe entry names', () => {
    for (const name of ['../x', '/etc/passwd', 'a/../../x', '..\\..\\x', 'C:/x', 'a\0b']) {
      expect(safeEntryName(name)).toBeNull();
    }
    expect(safeEntryName('./Demo.app/Info.plist')).toBe('Demo.app/Info.plist');
  });

  it('types uploads by name and magic bytes', () => {
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
    const gz = Buffer.from([0x1f, 0x8b, 0x08]);
    expect(archiveTypeOf('App.APK', zip)).toMatchObject({ kind: 'apk', platform: 'android' });
    expect(archiveTypeOf('Demo.app.zip', zip)).toMatchObject({ kind: 'app-zip', platform: 'ios' });
    expect(archiveTypeOf('b.tar.gz', gz)).toMatchObject({ kind: 'tar-gz', extension: '.tar.gz' });
    expect(archiveTypeOf('b.tgz', gz)).toMatchObject({ kind: 'tar-gz', extension: '.tgz' });
    expect(() => archiveTypeOf('b.tgz', zip)).toThrow(MalformedBuildError);
    expect(() => archiveTypeOf('b.zip', zip)).toThrow(/Unsupported file type/);
    expect(() => archiveTypeOf('b.ipa', zip)).toThrow(/simulator build/);
    expect(() => archiveTypeOf('b.aab', zip)).toThrow(/upload an APK/);
  });

  it('refuses a binary plist with a reference cycle', async () => {
    await expect(readInfoPlist(bplist([[0]]))).rejects.toBeInstanceOf(MalformedBuildError);
  });

  it('refuses an exponentially expanding binary plist within its time budget', async () => {
    // Object i is [i+1, i+1]: 2^40 nodes once expanded.
    const objects = Array.from({ length: 40 }, (_, i) => (i === 39 ? [] : [i + 1, i + 1]));
    const started = Date.now();
    await expect(readInfoPlist(bplist(objects))).rejects.toThrow(MalformedBuildError);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('refuses garbage that is neither XML nor binary', async () => {
    await expect(readInfoPlist(Buffer.from('not a plist'))).rejects.toThrow(/neither an XML nor a binary/);
    await expect(readInfoPlist(Buffer.from('<plist><dict><key>a</key></dict>'))).rejects.toBeInstanceOf(MalformedBuildError);
  });

  describe('XML plist encodings and the name fallback', () => {
    const xml = (dict: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\r\n<plist version="1.0">\r\n<dict>${dict}</dict>\r\n</plist>\r\n`;
    const id = '<key>CFBundleIdentifier</key><string>com.example.enc</string>';
    const named = xml(`${id}<key>CFBundleName</key><string>Café ☕</string>`);

    it('reads UTF-8 with a byte-order mark, and UTF-16 (either byte order) with one', async () => {
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(named, 'utf16le')]);
      const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(named, 'utf16le').swap16()]);
      for (const bytes of [Buffer.from(`\ufeff${named}`, 'utf8'), le, be]) {
        expect(await readInfoPlist(bytes)).toMatchObject({ bundleId: 'com.example.enc', name: 'Café ☕' });
      }
    });

    it('names the build after the .app folder when the plist names nothing, else after the bundle id', async () => {
      const bytes = Buffer.from(xml(`${id}<key>CFBundleDisplayName</key><string>  </string>`));
      expect((await readInfoPlist(bytes, 'Ma Appli.app')).name).toBe('Ma Appli');
      expect((await readInfoPlist(bytes)).name).toBe('com.example.enc');
    });
  });
});

describe('readIosTarball (tar-stream async iteration)', () => {
  const plistXml = (id: string) =>
    `<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>${id}</string></dict></plist>`;

  /** A .tar.gz of these entries, written to a temp file; returns its path and size. */
  async function tarball(entries: Array<[name: string, body: string]>): Promise<{ path: string; size: number }> {
    const pack = tarPack();
    for (const [name, body] of entries) pack.entry({ name }, body);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack.pipe(createGzip())) chunks.push(chunk as Buffer);
    const path = join(mkdtempSync(join(tmpdir(), 'tarball-')), 'app.tar.gz');
    writeFileSync(path, Buffer.concat(chunks));
    return { path, size: statSync(path).size };
  }

  it('skips other entries and reads the bundle’s own Info.plist', async () => {
    const file = await tarball([
      ['README.txt', 'hello'],
      ['Deep/Nested/Other.app/Info.plist', plistXml('com.example.deep')],
      ['Demo.app/Info.plist', plistXml('com.example.demo')],
    ]);
    expect(await readIosTarball(file.path, file.size)).toMatchObject({ bundleId: 'com.example.demo', name: 'Demo' });
  });

  it('names a bundle that is too deep when there is no other', async () => {
    const file = await tarball([['a/b/Deep.app/Info.plist', plistXml('com.example.deep')]]);
    await expect(readIosTarball(file.path, file.size)).rejects.toThrow(/found a\/b\/Deep\.app/);
  });

  it('keeps no test runner’s plist, and names a macOS app when that is all there is', async () => {
    const runnerOnly = await tarball([['P/MyAppUITests-Runner.app/Info.plist', plistXml('com.example.ui.xctrunner')]]);
    await expect(readIosTarball(runnerOnly.path, runnerOnly.size)).rejects.toThrow(
      "The archive holds no app, only MyAppUITests-Runner.app (a UI test runner); zip or tar the app's .app folder",
    );
    const mac = await tarball([
      ['P/MyAppUITests-Runner.app/Info.plist', plistXml('com.example.ui.xctrunner')],
      ['P/Mac.app/Contents/Info.plist', plistXml('com.example.mac')],
    ]);
    await expect(readIosTarball(mac.path, mac.size)).rejects.toThrow(/^This is a macOS app \(Mac\.app, com\.example\.mac\)/);
  });

  it('refuses a truncated archive as unreadable, with a MalformedBuildError', async () => {
    const file = await tarball([['README.txt', 'x'.repeat(100_000)], ['Demo.app/Info.plist', plistXml('com.example.demo')]]);
    const cut = join(mkdtempSync(join(tmpdir(), 'tarball-')), 'cut.tar.gz');
    writeFileSync(cut, readFileSync(file.path).subarray(0, Math.floor(file.size / 2)));
    const failure = readIosTarball(cut, file.size / 2);
    await expect(failure).rejects.toBeInstanceOf(MalformedBuildError);
    await expect(failure).rejects.toThrow(/not a readable \.tar\.gz archive/);
  });
});
