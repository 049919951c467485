import { MAX_RESOLVE_WORK, ResourceTable } from './arsc';
import { MalformedBuildError } from './malformed-build.error';

/**
 * A resources.arsc written chunk by chunk (AOSP ResourceTypes.h): one global string pool, package
 * 0x7f, and type 1 in the given configurations. Each configuration is sparse and defines entries
 * as (entry index, value) pairs; a value is a string index or `{ ref }`, a reference.
 */
function table(configs: { isDefault: boolean; entries: [number, number | { ref: number }][] }[], strings: string[]): Buffer {
  const chunk = (type: number, header: Buffer, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt16LE(type, 0);
    head.writeUInt16LE(8 + header.length, 2);
    head.writeUInt32LE(8 + header.length + body.length, 4);
    return Buffer.concat([head, header, body]);
  };
  const encoded = strings.map((s) => Buffer.concat([Buffer.from([s.length, Buffer.byteLength(s)]), Buffer.from(s), Buffer.from([0])]));
  const offsets = Buffer.alloc(4 * strings.length);
  encoded.reduce((at, e, i) => (offsets.writeUInt32LE(at, i * 4), at + e.length), 0);
  const poolHeader = Buffer.alloc(20);
  poolHeader.writeUInt32LE(strings.length, 0);
  poolHeader.writeUInt32LE(1 << 8, 8); // UTF-8
  poolHeader.writeUInt32LE(28 + offsets.length, 12);
  const pool = chunk(0x0001, poolHeader, Buffer.concat([offsets, ...encoded]));

  const written = new Map<string, Buffer>(); // identical configurations are written once
  const types = configs.map(({ isDefault, entries }) => {
    const key = JSON.stringify([isDefault, entries]);
    if (written.has(key)) return written.get(key)!;
    const config = Buffer.alloc(64);
    config.writeUInt32LE(64, 0);
    if (!isDefault) config.write('xx', 8, 'latin1'); // a language qualifier
    const header = Buffer.alloc(12 + 64);
    header.writeUInt8(1, 0); // type id
    header.writeUInt8(0x01, 1); // sparse
    header.writeUInt32LE(entries.length, 4);
    header.writeUInt32LE(8 + header.length + entries.length * 4, 8); // entriesStart
    config.copy(header, 12);
    const index = Buffer.alloc(entries.length * 4);
    const values = Buffer.alloc(entries.length * 16);
    entries.forEach(([entry, value], i) => {
      index.writeUInt16LE(entry, i * 4);
      index.writeUInt16LE((i * 16) / 4, i * 4 + 2);
      values.writeUInt16LE(8, i * 16); // entry header size
      values.writeUInt16LE(8, i * 16 + 8); // Res_value size
      values.writeUInt8(typeof value === 'number' ? 0x03 : 0x01, i * 16 + 11);
      values.writeUInt32LE(typeof value === 'number' ? value : value.ref, i * 16 + 12);
    });
    written.set(key, chunk(0x0201, header, Buffer.concat([index, values])));
    return written.get(key)!;
  });
  const packageHeader = Buffer.alloc(280);
  packageHeader.writeUInt32LE(0x7f, 0);
  const pkg = chunk(0x0200, packageHeader, Buffer.concat(types));
  const tableHeader = Buffer.alloc(4);
  tableHeader.writeUInt32LE(1, 0);
  return chunk(0x0002, tableHeader, Buffer.concat([pool, pkg]));
}

const id = (entry: number) => (0x7f010000 | entry) >>> 0;

describe('resources.arsc: work bounds', () => {
  it('resolves through the default configuration, a reference chain and a binary search of sparse entries', () => {
    const entries: [number, number | { ref: number }][] = [...Array(2000).keys()].map((e) => [e * 3, 1]);
    entries[1500] = [4500, { ref: id(7) }];
    entries.push([7000, 0]);
    const t = new ResourceTable(table([{ isDefault: true, entries }, { isDefault: false, entries: [[7, 0]] }], ['Label', 'other']));
    expect(t.resolveString(id(3))).toBe('other');
    expect(t.resolveString(id(7000))).toBe('Label');
    expect(t.resolveString(id(4500))).toBe('Label'); // default has no entry 7 → the xx configuration
    expect(t.resolveString(id(4))).toBeNull();
  });

  it('refuses a table whose lookups would examine more configurations than the bound', () => {
    // each configuration defines only entry 1; looking up entry 0 examines every one of them
    const many = Array.from({ length: MAX_RESOLVE_WORK + 1 }, () => ({ isDefault: false, entries: [[1, 0]] as [number, number][] }));
    const t = new ResourceTable(table(many, ['Label']));
    const started = Date.now();
    expect(() => t.resolveString(id(0))).toThrow(MalformedBuildError);
    expect(() => t.resolveString(id(0))).toThrow('resources.arsc is too complex to resolve (too many configurations)');
    expect(Date.now() - started).toBeLessThan(10_000);
    // …and within the bound, the same shape still resolves
    const fewer = new ResourceTable(table(many.slice(0, 1000), ['Label']));
    expect(fewer.resolveString(id(1))).toBe('Label');
    expect(fewer.resolveString(id(0))).toBeNull();
  });

  it('counts the work of every hop of a reference chain together', () => {
    // 8 hops through entries 0…7, each found only in the last of 20,000 configurations
    const configs = Array.from({ length: 20_000 }, () => ({ isDefault: false, entries: [[100, 0]] as [number, number | { ref: number }][] }));
    configs.push({ isDefault: false, entries: [...Array(7).keys()].map((e) => [e, { ref: id(e + 1) }] as [number, { ref: number }]) });
    configs[configs.length - 1].entries.push([7, 0]);
    const t = new ResourceTable(table(configs, ['Label']));
    expect(() => t.resolveString(id(0))).toThrow('resources.arsc is too complex to resolve (too many configurations)');
    expect(t.resolveString(id(5))).toBe('Label'); // three hops: 60,003 configurations examined
  });
});
