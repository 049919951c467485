import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { MemberFactory, TestMember } from '../support/factory';
import { attachBuild, fixture, tempFiles } from '../support/build-fixtures';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { uploadedBuild } from './uploaded-build';

/**
 * Builds as real toolchains produce them (test/fixtures/builds/real-world/, made by make-fixtures.sh
 * with aapt2, aapt, zipalign, apksigner, GNU tar and real_world_fixtures.py), uploaded through
 * POST /builds. expected.json holds what `aapt2 dump badging` and the plist sources say.
 */
const DIR = 'real-world';
const rw = (name: string) => fixture(join(DIR, name));
const EXPECTED: Record<string, Parameters<typeof uploadedBuild>[0]> = JSON.parse(readFileSync(rw('expected.json'), 'utf8'));

describe('POST /builds: real-world builds', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  let pat: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    pat = await members.pat(dev, 'builds:write');
  });
  afterAll(() => relay.close());

  const upload = (name: string) => attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), join(DIR, name), {}, name);

  it('has the fixtures this spec is about', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(
      [
        'aapt-overlay.apk',
        'aapt2-literal.apk',
        'aapt2-multiconfig.apk',
        'aapt2-sparse.apk',
        'bom-crlf.app.zip',
        'bplist-utf16.app.zip',
        'ditto.app.zip',
        'dot-prefix-gnu.tar.gz',
        'dot-prefix-pax.tgz',
        'folder-down.tar.gz',
        'folder-name.app.zip',
        'nested-first.app.zip',
        'obfuscated-manifest.apk',
        'offset16-compact.apk',
        'signed-aligned.apk',
        'stored-manifest.apk',
        'utf8-manifest.apk',
        'zip64.apk',
      ].sort(),
    );
  });

  it.each(Object.keys(EXPECTED))('reads exactly the metadata of %s', async (name) => {
    const expected = EXPECTED[name];
    const res = await upload(name).expect(201);
    expect(res.body).toEqual(uploadedBuild(expected));
    const stored = await members.as(dev, 'get', `/api/v1/builds/${res.body.id}`).expect(200);
    expect(stored.body).toMatchObject(expected);
    expect(tempFiles(relay)).toEqual([]);
  });

  it('takes the values aapt2 prints, the default configuration winning over values-fr and values-de', () => {
    const badging = readFileSync(rw('aapt2-multiconfig.apk.badging.txt'), 'utf8');
    expect(badging).toContain("package: name='com.example.weather' versionCode='2147483647' versionName='4.5.6-rc.1'");
    expect(badging).toContain("application-label:'Météo ☀️ Pro'");
    expect(EXPECTED['aapt2-multiconfig.apk']).toMatchObject({ name: 'Météo ☀️ Pro', version_name: '4.5.6-rc.1' });
    // No application label: the launcher activity's; versionCodeMajor 3 is not folded in (badging shows versionCode only).
    expect(readFileSync(rw('aapt2-sparse.apk.badging.txt'), 'utf8')).toContain("label='Größe 📏'");
    expect(EXPECTED['aapt2-sparse.apk']).toMatchObject({ name: 'Größe 📏', version_name: '10.0.1', build_number: '2147483647' });
    expect(readFileSync(rw('aapt2-sparse.apk.badging.txt'), 'utf8')).toContain("versionCode='2147483647'");
    expect(EXPECTED['aapt-overlay.apk']).toMatchObject({ name: 'Überlagert ✓', version_name: '3.0', build_number: '16' });
  });

  it('refuses an .app two folders down with a 400 naming where it was found', async () => {
    const res = await upload('two-deep.app.zip').expect(400);
    expect(res.body.error).toBe(
      'The archive contains no app bundle at the top level or one folder down (found Build/Products/Deep.app; zip or tar the .app folder itself, or its parent folder)',
    );
    expect(tempFiles(relay)).toEqual([]);
  });

  describe('the fixtures are what they claim (so the cases above cannot pass vacuously)', () => {
    const zip = (name: string) => readZip(readFileSync(rw(name)));

    it('signed-aligned.apk: an APK Signing Block (v2 + v3) sits between the entries and the central directory', () => {
      const bytes = readFileSync(rw('signed-aligned.apk'));
      const { centralDirectoryOffset } = readZip(bytes);
      const magic = bytes.indexOf('APK Sig Block 42');
      expect(magic).toBeGreaterThan(0);
      expect(magic + 16).toBe(centralDirectoryOffset);
      expect(readFileSync(rw('signed-aligned.apk.verify.txt'), 'utf8')).toMatch(/v2 scheme.*true[\s\S]*v3 scheme.*true/);
    });

    it('the manifest is stored in one APK and deflated in the others; zip64.apk has zip64 end records', () => {
      expect(zip('stored-manifest.apk').entries.get('AndroidManifest.xml')!.method).toBe(0);
      expect(zip('aapt2-multiconfig.apk').entries.get('AndroidManifest.xml')!.method).toBe(8);
      const z64 = readFileSync(rw('zip64.apk'));
      expect(z64.indexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBeGreaterThan(0);
      expect(z64.readUInt32LE(z64.length - 22 + 16)).toBe(0xffffffff);
    });

    it('manifest string pools: UTF-16 from aapt2 and aapt, UTF-8 in utf8-manifest.apk; obfuscated names are empty', () => {
      const poolFlags = (apk: string) => zip(apk).read('AndroidManifest.xml').readUInt32LE(8 + 16);
      expect(poolFlags('aapt2-multiconfig.apk') & 0x100).toBe(0);
      expect(poolFlags('aapt-overlay.apk') & 0x100).toBe(0);
      expect(poolFlags('utf8-manifest.apk') & 0x100).toBe(0x100);
      const obfuscated = zip('obfuscated-manifest.apk').read('AndroidManifest.xml');
      expect(obfuscated.includes(Buffer.from('versionName', 'utf16le'))).toBe(false);
      expect(zip('aapt2-multiconfig.apk').read('AndroidManifest.xml').includes(Buffer.from('versionName', 'utf16le'))).toBe(true);
    });

    it('resource tables: sparse types from aapt2, offset16 + compact entries in offset16-compact.apk, UTF-16 from aapt --utf16', () => {
      const typeFlags = (apk: string) => typeChunkFlags(zip(apk).read('resources.arsc'));
      expect(typeFlags('aapt2-sparse.apk').filter((f) => f & 0x01).length).toBeGreaterThanOrEqual(3);
      expect(typeFlags('offset16-compact.apk').every((f) => f & 0x02)).toBe(true);
      expect(typeFlags('aapt2-multiconfig.apk').some((f) => f & 0x03)).toBe(false);
      const arsc = zip('aapt-overlay.apk').read('resources.arsc');
      expect(arsc.readUInt32LE(arsc.readUInt16LE(2) + 16) & 0x100).toBe(0);
      // aapt2 writes the 📏 of the sparse table's label as CESU-8 (two 3-byte surrogates).
      expect(zip('aapt2-sparse.apk').read('resources.arsc').includes(Buffer.from('eda0bdedb38f', 'hex'))).toBe(true);
    });

    it('iOS archives: AppleDouble and nested Info.plists come before the app’s own', () => {
      const ditto = [...zip('ditto.app.zip').entries.keys()];
      expect(ditto.indexOf('__MACOSX/Ditto.app/._Info.plist')).toBeLessThan(ditto.indexOf('Ditto.app/Info.plist'));
      expect(zip('ditto.app.zip').entries.get('Ditto.app/Info.plist')!.flags & 0x08).toBe(0x08); // data descriptor
      const nested = [...zip('nested-first.app.zip').entries.keys()];
      expect(nested.filter((n) => n.endsWith('/Info.plist')).pop()).toBe('Host.app/Info.plist');
      expect(nested.some((n) => n.endsWith('/'))).toBe(false);
      expect(zip('folder-name.app.zip').entries.get('Café Crème.app/Info.plist')!.flags & 0x800).toBe(0);
      const crlf = zip('bom-crlf.app.zip').read('Crlf.app/Info.plist');
      expect(crlf.subarray(0, 3).toString('hex')).toBe('efbbbf');
      expect(crlf.includes('\r\n')).toBe(true);
    });
  });
});

interface ZipEntryInfo {
  method: number;
  flags: number;
  localOffset: number;
  compressedSize: number;
}

/** A minimal central-directory reader for checking fixture properties (names read as UTF-8). */
function readZip(bytes: Buffer) {
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let count = bytes.readUInt16LE(eocd + 10);
  let centralDirectoryOffset = bytes.readUInt32LE(eocd + 16);
  if (centralDirectoryOffset === 0xffffffff) {
    const z64 = Number(bytes.readBigUInt64LE(eocd - 20 + 8));
    count = Number(bytes.readBigUInt64LE(z64 + 32));
    centralDirectoryOffset = Number(bytes.readBigUInt64LE(z64 + 48));
  }
  const entries = new Map<string, ZipEntryInfo>();
  let at = centralDirectoryOffset;
  for (let i = 0; i < count; i++) {
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    let compressedSize = bytes.readUInt32LE(at + 20);
    let localOffset = bytes.readUInt32LE(at + 42);
    if (localOffset === 0xffffffff) {
      const extra = at + 46 + nameLength;
      compressedSize = Number(bytes.readBigUInt64LE(extra + 12));
      localOffset = Number(bytes.readBigUInt64LE(extra + 20));
    }
    entries.set(bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8'), {
      method: bytes.readUInt16LE(at + 10),
      flags: bytes.readUInt16LE(at + 8),
      localOffset,
      compressedSize,
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  const read = (name: string): Buffer => {
    const e = entries.get(name)!;
    const data = e.localOffset + 30 + bytes.readUInt16LE(e.localOffset + 26) + bytes.readUInt16LE(e.localOffset + 28);
    const raw = bytes.subarray(data, data + e.compressedSize);
    return e.method === 8 ? inflateRawSync(raw) : raw;
  };
  return { entries, centralDirectoryOffset, read };
}

/** The flags byte of every ResTable_type chunk in a resources.arsc. */
function typeChunkFlags(arsc: Buffer): number[] {
  const flags: number[] = [];
  const walk = (from: number, end: number) => {
    for (let at = from; at + 8 <= end; at += arsc.readUInt32LE(at + 4)) {
      const type = arsc.readUInt16LE(at);
      if (type === 0x0200) walk(at + arsc.readUInt16LE(at + 2), at + arsc.readUInt32LE(at + 4));
      if (type === 0x0201) flags.push(arsc.readUInt8(at + 9));
    }
  };
  walk(arsc.readUInt16LE(2), arsc.length);
  return flags;
}
