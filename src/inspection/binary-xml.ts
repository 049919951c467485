import { ByteReader } from './malformed-build.error';
import { childChunks, ChunkType, readChunk, StringPool, ValueType } from './res-chunks';

/** One attribute of a binary XML element, with the typed value aapt compiled it to. */
export interface XmlAttribute {
  namespace: string | null;
  name: string;
  /** Android attribute resource id (from the resource map), or null. */
  resourceId: number | null;
  /** The original string, when aapt kept it. */
  raw: string | null;
  type: number;
  data: number;
  /** `raw`, or the string the typed value points at. */
  stringValue: string | null;
}

export interface XmlElement {
  name: string;
  depth: number;
  attributes: XmlAttribute[];
}

const MAX_ELEMENTS = 100_000;
const ATTRIBUTE_MIN_SIZE = 20;

/**
 * Decodes Android binary XML (the compiled AndroidManifest.xml) into its elements in document order.
 * Every size and index is bounds-checked; anything inconsistent throws MalformedBuildError.
 */
export function decodeBinaryXml(buf: Buffer): XmlElement[] {
  const r: ByteReader = new ByteReader(buf, 'AndroidManifest.xml');
  if (buf.length < 8) r.fail('too short');
  const root = readChunk(r, 0, buf.length);
  if (root.type !== ChunkType.Xml) r.fail('not a binary XML document');
  let pool: StringPool | null = null;
  let resourceIds: number[] = [];
  const elements: XmlElement[] = [];
  let depth = 0;

  for (const chunk of childChunks(r, root.start + root.headerSize, root.end)) {
    switch (chunk.type) {
      case ChunkType.StringPool:
        pool = new StringPool(r, chunk);
        break;
      case ChunkType.XmlResourceMap: {
        const n = (chunk.end - chunk.start - chunk.headerSize) >>> 2;
        resourceIds = Array.from({ length: n }, (_, i) => r.u32(chunk.start + chunk.headerSize + i * 4));
        break;
      }
      case ChunkType.XmlStartElement: {
        if (!pool) r.fail('element before string pool');
        if (elements.length >= MAX_ELEMENTS) r.fail('too many elements');
        const ext = chunk.start + chunk.headerSize;
        const name = pool.get(r.u32(ext + 4)) ?? '';
        const attributeStart = r.u16(ext + 8);
        const attributeSize = r.u16(ext + 10);
        const attributeCount = r.u16(ext + 12);
        if (attributeCount && attributeSize < ATTRIBUTE_MIN_SIZE) r.fail('attribute size');
        const attributes: XmlAttribute[] = [];
        for (let i = 0; i < attributeCount; i++) {
          const at = ext + attributeStart + i * attributeSize;
          if (at + ATTRIBUTE_MIN_SIZE > chunk.end) r.fail('attribute runs past its element');
          const nameIndex = r.u32(at + 4);
          const raw = pool.get(r.u32(at + 8));
          const type = r.u8(at + 15);
          const data = r.u32(at + 16);
          attributes.push({
            namespace: pool.get(r.u32(at)),
            name: pool.get(nameIndex) ?? '',
            resourceId: nameIndex < resourceIds.length ? resourceIds[nameIndex] : null,
            raw,
            type,
            data,
            stringValue: raw ?? (type === ValueType.String ? pool.get(data) : null),
          });
        }
        elements.push({ name, depth, attributes });
        depth++;
        break;
      }
      case ChunkType.XmlEndElement:
        depth = Math.max(0, depth - 1);
        break;
      default:
        break; // namespaces, CDATA and unknown chunks carry nothing we need
    }
  }
  return elements;
}
