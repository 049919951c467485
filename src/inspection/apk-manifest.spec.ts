import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZipArchive } from './zip-archive';
import { readApkManifest } from './apk-manifest';
import { ResourceTable } from './arsc';
import { decodeBinaryXml } from './binary-xml';
import { decodePoolUtf8 } from './res-chunks';
import { MalformedBuildError } from './malformed-build.error';

const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'builds');
const REAL_WORLD = 'real-world';

async function entryOf(apk: string, name: string): Promise<Buffer> {
  const zip = await ZipArchive.open(join(FIXTURES, apk));
  try {
    let found: Parameters<ZipArchive['read']>[0] | null = null;
    await zip.scan((ref) => {
      if (ref.name === name) found = ref;
      return !!found;
    });
    return await zip.read(found!, 64 << 20, name);
  } finally {
    zip.close();
  }
}

describe('Android binary XML and resources.arsc', () => {
  let manifest: Buffer;
  let stringManifest: Buffer;
  let arsc: Buffer;
  beforeAll(async () => {
    manifest = await entryOf('literal-label.apk', 'AndroidManifest.xml');
    stringManifest = await entryOf('string-label.apk', 'AndroidManifest.xml');
    arsc = await entryOf('string-label.apk', 'resources.arsc');
  });

  it('decodes an aapt manifest', () => {
    const elements = decodeBinaryXml(manifest);
    expect(elements.map((e) => `${e.depth}:${e.name}`)).toEqual([
      '0:manifest',
      '1:uses-sdk',
      '1:application',
      '2:activity',
      '3:intent-filter',
      '4:action',
      '4:category',
    ]);
  });

  it('resolves an @string label through the default configuration', async () => {
    const meta = await readApkManifest(stringManifest, async () => arsc);
    expect(meta).toEqual({
      platform: 'android',
      bundleId: 'com.example.stringlabel',
      name: 'Résumé Viewer',
      versionName: '2.0.0-beta',
      buildNumber: '7',
    });
  });

  it('falls back to the package name when the resource table is absent', async () => {
    expect((await readApkManifest(stringManifest, async () => null)).name).toBe('com.example.stringlabel');
  });

  const malformed: [string, () => Buffer][] = [
    ['truncated', () => manifest.subarray(0, manifest.length / 2)],
    ['empty', () => Buffer.alloc(0)],
    ['plain text', () => Buffer.from('<?xml version="1.0"?><manifest package="a"/>')],
    ['random bytes', () => Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 131) & 0xff))],
    [
      'string pool count 0xFFFFFFFF',
      () => {
        const copy = Buffer.from(manifest);
        copy.writeUInt32LE(0xffffffff, 8 + 8); // first chunk after the file header is the string pool
        return copy;
      },
    ],
    [
      'chunk size 0',
      () => {
        const copy = Buffer.from(manifest);
        copy.writeUInt32LE(0, 8 + 4);
        return copy;
      },
    ],
    [
      'document size larger than the file',
      () => {
        const copy = Buffer.from(manifest);
        copy.writeUInt32LE(copy.length * 4, 4);
        return copy;
      },
    ],
  ];

  it.each(malformed)('refuses a %s manifest with MalformedBuildError, quickly', async (_, make) => {
    const started = Date.now();
    await expect(readApkManifest(make(), async () => null)).rejects.toBeInstanceOf(MalformedBuildError);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('refuses every truncation of a real manifest without throwing anything else', async () => {
    for (let length = 0; length < manifest.length; length += 7) {
      await expect(readApkManifest(manifest.subarray(0, length), async () => null)).rejects.toBeInstanceOf(MalformedBuildError);
    }
  });

  it('survives every truncation of a real resource table', () => {
    for (let length = 0; length < arsc.length; length += 13) {
      try {
        new ResourceTable(arsc.subarray(0, length)).resolveString(0x7f020000);
      } catch (err) {
        expect(err).toBeInstanceOf(MalformedBuildError);
      }
    }
  });

  it('survives every truncation of sparse and offset16/compact tables', async () => {
    for (const apk of ['aapt2-sparse.apk', 'offset16-compact.apk']) {
      const table = await entryOf(join(REAL_WORLD, apk), 'resources.arsc');
      const label = apk === 'aapt2-sparse.apk' ? 'Größe 📏' : 'Météo ☀️ Pro';
      // Strings are type 1 (weather) or 2 (sparse: colors first): the first 64 entries of each hold the label.
      const ids = [0x7f010000, 0x7f020000].flatMap((type) => [...Array(64).keys()].map((e) => type + e));
      expect(ids.map((i) => new ResourceTable(table).resolveString(i))).toContain(label);
      for (let length = 0; length < table.length; length += 17) {
        try {
          for (const i of ids) new ResourceTable(table.subarray(0, length)).resolveString(i);
        } catch (err) {
          expect(err).toBeInstanceOf(MalformedBuildError);
        }
      }
    }
  });

  it('decodes pool UTF-8 as aapt2 writes it: supplementary characters as surrogate pairs (CESU-8) or 4-byte sequences', () => {
    expect(decodePoolUtf8(Buffer.from('47 72 c3 b6 c3 9f 65 20 ed a0 bd ed b3 8f'.replace(/ /g, ''), 'hex'))).toBe('Größe 📏');
    expect(decodePoolUtf8(Buffer.from('Größe 📏 ☀️'))).toBe('Größe 📏 ☀️');
    expect(decodePoolUtf8(Buffer.from('61 ed a0 bd 62'.replace(/ /g, ''), 'hex'))).toBe('a\ufffdb'); // half a pair
    expect(decodePoolUtf8(Buffer.from('ed b3 8f ff 63'.replace(/ /g, ''), 'hex'))).toBe('\ufffd\ufffdc');
  });

  it('stops on a self-referencing resource', () => {
    const table = new ResourceTable(arsc);
    const id = findStringResource(table);
    // Rewrite that entry's value into a reference to itself.
    const copy = Buffer.from(arsc);
    const valueAt = locateValue(copy, 'Résumé Viewer');
    copy.writeUInt8(0x01, valueAt + 3);
    copy.writeUInt32LE(id, valueAt + 4);
    expect(() => new ResourceTable(copy).resolveString(id)).toThrow(/reference loop/);
  });
});

/** The id of app_name: package 0x7f, the string type, entry 0 (aapt sorts app_name first). */
function findStringResource(table: ResourceTable): number {
  for (let type = 1; type < 10; type++) {
    const id = (0x7f << 24) | (type << 16);
    if (table.resolveString(id) === 'Résumé Viewer') return id >>> 0;
  }
  throw new Error('app_name not found');
}

/** Offset of the default-config Res_value whose data is the global string index of `text`. */
function locateValue(buf: Buffer, text: string): number {
  // Global string pool: index of `text`.
  const poolAt = 12;
  const count = buf.readUInt32LE(poolAt + 8);
  const flags = buf.readUInt32LE(poolAt + 16);
  const stringsStart = buf.readUInt32LE(poolAt + 20);
  const headerSize = buf.readUInt16LE(poolAt + 2);
  let index = -1;
  for (let i = 0; i < count; i++) {
    const at = poolAt + stringsStart + buf.readUInt32LE(poolAt + headerSize + i * 4);
    const s = flags & 0x100 ? buf.subarray(at + 2, at + 2 + buf[at + 1]).toString('utf8') : '';
    if (s === text) index = i;
  }
  // A Res_value is {size=8, res0=0, type=0x03 string, data=index}.
  const needle = Buffer.alloc(8);
  needle.writeUInt16LE(8, 0);
  needle.writeUInt8(0x03, 3);
  needle.writeUInt32LE(index, 4);
  const at = buf.indexOf(needle);
  if (index < 0 || at < 0) throw new Error('value not found');
  return at;
}
