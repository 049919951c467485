import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { MalformedBuildError } from './malformed-build.error';
import { ZipArchive, ZipEntryRef } from './zip-archive';

interface Member {
  name: string;
  data: Buffer;
  stored?: boolean;
  /** Declares this uncompressed size instead of the real one (a corrupt record). */
  declaredSize?: number;
  /** Points the central record at this offset instead of the local header (a corrupt record). */
  localOffset?: number;
}

/** A plain zip (no zip64, no data descriptors), as `zip` writes one. */
function zipOf(members: Member[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const body = m.stored ? m.data : deflateRawSync(m.data);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(m.stored ? 0 : 8, at);
      header.writeUInt32LE(crc32(m.data), at + 6);
      header.writeUInt32LE(body.length, at + 10);
      header.writeUInt32LE(m.declaredSize ?? m.data.length, at + 14);
      header.writeUInt16LE(name.length, at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    fields(local, 8);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    fields(record, 10);
    record.writeUInt32LE(m.localOffset ?? offset, 42);
    locals.push(local, name, body);
    central.push(record, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('ZipArchive (read in windows, small entries inflated at once)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'svc-zip-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function withZip<T>(members: Member[], use: (zip: ZipArchive, refs: Map<string, ZipEntryRef>) => Promise<T>, passSize = true): Promise<T> {
    const path = join(dir, `${Math.random().toString(16).slice(2)}.zip`);
    writeFileSync(path, zipOf(members));
    const zip = await ZipArchive.open(path, passSize ? statSync(path).size : undefined);
    try {
      const refs = new Map<string, ZipEntryRef>();
      await zip.scan((ref) => void refs.set(ref.name, ref));
      return await use(zip, refs);
    } finally {
      zip.close();
    }
  }

  it('lists a central directory far larger than one window, and reads entries from its start, middle and end', async () => {
    // ~5,000 records of ~140 bytes: ~700 kB of central directory, before the 256 kB read at the end.
    const members = Array.from({ length: 5000 }, (_, i) => ({
      name: `res/drawable-xxhdpi/${String(i).padStart(5, '0')}-${'n'.repeat(80)}.png`,
      data: Buffer.from(`entry ${i} `.repeat(1 + (i % 7))),
      stored: i % 2 === 0,
    }));
    await withZip(members, async (zip, refs) => {
      expect([...refs.keys()]).toEqual(members.map((m) => m.name));
      for (const i of [0, 1, 2500, 4998, 4999]) {
        expect(await zip.read(refs.get(members[i].name)!, 1 << 20, 'entry')).toEqual(members[i].data);
      }
    });
  });

  it('streams entries larger than the inflate-at-once limit, deflated or stored, byte for byte', async () => {
    const noise = randomBytes(300 * 1024); // does not compress: ~300 kB deflated
    const text = Buffer.from('a line of a manifest\n'.repeat(100_000)); // 2.1 MB, a few kB deflated: streams too
    await withZip(
      [
        { name: 'noise.bin', data: noise },
        { name: 'stored.bin', data: noise, stored: true },
        { name: 'text.xml', data: text },
      ],
      async (zip, refs) => {
        expect((await zip.read(refs.get('noise.bin')!, 1 << 20, 'noise')).equals(noise)).toBe(true);
        expect((await zip.read(refs.get('stored.bin')!, 1 << 20, 'stored')).equals(noise)).toBe(true);
        expect((await zip.read(refs.get('text.xml')!, 4 << 20, 'text')).equals(text)).toBe(true);
      },
      false,
    );
  });

  it('refuses a small deflated entry whose record declares another size, larger or smaller', async () => {
    const data = Buffer.from('<manifest/>'.repeat(50));
    await withZip(
      [
        { name: 'short.xml', data, declaredSize: data.length - 1 },
        { name: 'long.xml', data, declaredSize: data.length + 1 },
        { name: 'right.xml', data },
      ],
      async (zip, refs) => {
        for (const name of ['short.xml', 'long.xml']) {
          const failure = zip.read(refs.get(name)!, 1 << 20, name);
          await expect(failure).rejects.toBeInstanceOf(MalformedBuildError);
          await expect(failure).rejects.toThrow(`${name} cannot be read from the archive`);
        }
        expect(await zip.read(refs.get('right.xml')!, 1 << 20, 'right.xml')).toEqual(data);
        await expect(zip.read(refs.get('right.xml')!, data.length - 1, 'right.xml')).rejects.toThrow('larger than');
      },
    );
  });

  it('refuses an entry whose record points past the end of the file, and keeps reading the others', async () => {
    const data = Buffer.from('<manifest/>');
    await withZip(
      [
        { name: 'far.xml', data, localOffset: 5_000_000 },
        { name: 'near.xml', data },
      ],
      async (zip, refs) => {
        await expect(zip.read(refs.get('far.xml')!, 1 << 20, 'far.xml')).rejects.toThrow('far.xml cannot be read from the archive');
        expect(await zip.read(refs.get('near.xml')!, 1 << 20, 'near.xml')).toEqual(data);
      },
    );
  });

  it('refuses what is not a zip, naming the problem', async () => {
    const path = join(dir, 'not.zip');
    writeFileSync(path, Buffer.from('not a zip at all'));
    await expect(ZipArchive.open(path)).rejects.toThrow('The file is not a readable zip archive');
  });
});
