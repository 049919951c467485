import { ByteReader, MalformedBuildError } from './malformed-build.error';
import { childChunks, ChunkType, readChunk, StringPool, ValueType } from './res-chunks';

const NO_ENTRY = 0xffffffff;
const FLAG_COMPLEX = 0x0001;
/** aapt2 --enable-compact-entries: key, flags (type in the high byte) and data in 8 bytes. */
const FLAG_COMPACT = 0x0008;
const TYPE_FLAG_SPARSE = 0x01;
const TYPE_FLAG_OFFSET16 = 0x02;
/** References followed before giving up (a resource that points at itself, or a long chain). */
const MAX_REFERENCE_HOPS = 8;
/**
 * Configurations examined for one resolveString, over all its hops. A real string type has one
 * configuration per locale and density (hundreds at most); a crafted table of a few MB (and a
 * zip of a few KB) can hold hundreds of thousands, each examined on every hop.
 */
export const MAX_RESOLVE_WORK = 100_000;

interface TypeConfig {
  isDefault: boolean;
  /** ResTable_config.density: 0 default, 120…640 ldpi…xxxhdpi, 0xfffe anydpi, 0xffff nodpi. */
  density: number;
  start: number;
  chunkEnd: number;
  entriesStart: number;
  count: number;
  flags: number;
}

/** One file of a resource (`res/mipmap-xxhdpi-v4/ic_launcher.png`) and the density it is for. */
export interface ResourceFile {
  path: string;
  density: number;
}

interface Value {
  type: number;
  data: number;
}

/**
 * Just enough of resources.arsc to resolve a `@string/…` reference, as `aapt dump badging` does:
 * the value of the default configuration (all qualifiers zero), else the first configuration
 * that defines it.
 */
export class ResourceTable {
  private readonly r: ByteReader;
  private readonly globalStrings: StringPool;
  /** package id → type id → its configurations, the default configuration(s) first */
  private readonly packages = new Map<number, Map<number, TypeConfig[]>>();

  constructor(buf: Buffer) {
    this.r = new ByteReader(buf, 'resources.arsc');
    const r: ByteReader = this.r;
    if (buf.length < 12) r.fail('too short');
    const root = readChunk(r, 0, buf.length);
    if (root.type !== ChunkType.Table) r.fail('not a resource table');
    let strings: StringPool | null = null;
    for (const chunk of childChunks(r, root.start + root.headerSize, root.end)) {
      if (chunk.type === ChunkType.StringPool && !strings) strings = new StringPool(r, chunk);
      if (chunk.type !== ChunkType.TablePackage) continue;
      const packageId = r.u32(chunk.start + 8);
      const types = this.packages.get(packageId) ?? new Map();
      this.packages.set(packageId, types);
      for (const child of childChunks(r, chunk.start + chunk.headerSize, chunk.end)) {
        if (child.type !== ChunkType.TableType) continue;
        const typeId = r.u8(child.start + 8);
        const flags = r.u8(child.start + 9);
        const count = r.u32(child.start + 12);
        const entriesStart = r.u32(child.start + 16);
        const configAt = child.start + 20;
        const configSize = r.u32(configAt);
        if (configSize < 4 || configAt + configSize > child.start + child.headerSize) r.fail('config size');
        const isDefault = r.slice(configAt + 4, configSize - 4).every((b) => b === 0);
        const density = configSize >= 16 ? r.u16(configAt + 14) : 0;
        const offsetWidth = flags & (TYPE_FLAG_SPARSE | TYPE_FLAG_OFFSET16) ? (flags & TYPE_FLAG_SPARSE ? 4 : 2) : 4;
        if (count > (child.end - child.start - child.headerSize) / offsetWidth) r.fail('entry count exceeds its chunk');
        const list = types.get(typeId) ?? [];
        list.push({ isDefault, density, start: child.start, chunkEnd: child.end, entriesStart, count, flags });
        types.set(typeId, list);
      }
    }
    if (!strings) r.fail('no global string pool');
    this.globalStrings = strings;
    for (const types of this.packages.values()) {
      for (const [typeId, configs] of types) types.set(typeId, [...configs.filter((c) => c.isDefault), ...configs.filter((c) => !c.isDefault)]);
    }
  }

  /** The string a resource id resolves to, or null when the table has no string for it. */
  resolveString(resourceId: number): string | null {
    return this.follow(resourceId, (value) => (value.type === ValueType.String ? this.globalStrings.get(value.data) : undefined));
  }

  /** The colour (0xAARRGGBB) a resource id resolves to, or null when it is not a colour. */
  resolveColor(resourceId: number): number | null {
    return this.follow(resourceId, (value) =>
      value.type >= ValueType.ColorFirst && value.type <= ValueType.ColorLast ? value.data >>> 0 : undefined,
    );
  }

  /** Follows references from `resourceId` until `accept` takes a value (null: no value, or another kind). */
  private follow<T>(resourceId: number, accept: (value: Value) => T | undefined): T | null {
    let id = resourceId;
    const budget = { left: MAX_RESOLVE_WORK };
    for (let hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
      const value = this.lookup(id, budget);
      if (!value) return null;
      const accepted = accept(value);
      if (accepted !== undefined) return accepted;
      const isReference = value.type === ValueType.Reference || value.type === ValueType.DynamicReference;
      if (!isReference || value.data === 0) return null;
      id = value.data;
    }
    throw new MalformedBuildError('resources.arsc is corrupt (reference loop)');
  }

  /**
   * Every file a resource id stands for, one per configuration that defines it, with that
   * configuration's density (a mipmap's PNGs per density, an adaptive icon's XML under anydpi).
   * A configuration whose value is a reference is followed to the referenced resource's files.
   */
  resolveFiles(resourceId: number): ResourceFile[] {
    const budget = { left: MAX_RESOLVE_WORK };
    const files: ResourceFile[] = [];
    const visit = (id: number, hops: number, density: number | null) => {
      if (hops > MAX_REFERENCE_HOPS) throw new MalformedBuildError('resources.arsc is corrupt (reference loop)');
      const configs = this.configsOf(id);
      for (const config of configs) {
        if (--budget.left < 0) throw new MalformedBuildError('resources.arsc is too complex to resolve (too many configurations)');
        const value = this.entryValue(config, id & 0xffff);
        if (!value) continue;
        if (value.type === ValueType.String) {
          const path = this.globalStrings.get(value.data);
          if (path) files.push({ path, density: density ?? config.density });
        } else if ((value.type === ValueType.Reference || value.type === ValueType.DynamicReference) && value.data !== 0) {
          visit(value.data, hops + 1, density ?? config.density);
        }
      }
    };
    visit(resourceId, 0, null);
    return files;
  }

  private configsOf(resourceId: number): TypeConfig[] {
    return this.packages.get(resourceId >>> 24)?.get((resourceId >>> 16) & 0xff) ?? [];
  }

  private lookup(resourceId: number, budget: { left: number }): Value | null {
    const packageId = resourceId >>> 24;
    const typeId = (resourceId >>> 16) & 0xff;
    const entry = resourceId & 0xffff;
    const configs = this.packages.get(packageId)?.get(typeId);
    if (!configs) return null;
    for (const config of configs) {
      if (--budget.left < 0) throw new MalformedBuildError('resources.arsc is too complex to resolve (too many configurations)');
      const value = this.entryValue(config, entry);
      if (value) return value;
    }
    return null;
  }

  private entryValue(config: TypeConfig, entry: number): Value | null {
    const r: ByteReader = this.r;
    const headerSize = r.u16(config.start + 2);
    const offsetsAt = config.start + headerSize;
    let offset = NO_ENTRY;
    if (config.flags & TYPE_FLAG_SPARSE) {
      // Sparse: (entry index u16, offset/4 u16) pairs sorted by index, searched as AOSP does (binary).
      let low = 0;
      let high = config.count - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        const index = r.u16(offsetsAt + mid * 4);
        if (index === entry) {
          offset = r.u16(offsetsAt + mid * 4 + 2) * 4;
          break;
        }
        if (index < entry) low = mid + 1;
        else high = mid - 1;
      }
    } else if (entry < config.count) {
      if (config.flags & TYPE_FLAG_OFFSET16) {
        const o = r.u16(offsetsAt + entry * 2);
        offset = o === 0xffff ? NO_ENTRY : o * 4;
      } else {
        offset = r.u32(offsetsAt + entry * 4);
      }
    }
    if (offset === NO_ENTRY) return null;
    const at = config.start + config.entriesStart + offset;
    if (at + 8 > config.chunkEnd) r.fail('entry out of range');
    const size = r.u16(at);
    const flags = r.u16(at + 2);
    if (flags & FLAG_COMPACT) return { type: flags >>> 8, data: r.u32(at + 4) };
    if (flags & FLAG_COMPLEX) return null; // bags (styles, plurals) are never an app label
    const valueAt = at + size;
    if (valueAt + 8 > config.chunkEnd) r.fail('value out of range');
    return { type: r.u8(valueAt + 3), data: r.u32(valueAt + 4) };
  }
}
