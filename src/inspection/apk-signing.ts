import { X509Certificate } from 'node:crypto';
import type { SigningCertificate, SigningScheme } from './build-contents';
import { ByteReader, MalformedBuildError } from './malformed-build.error';
import type { ZipArchive, ZipEntryRef } from './zip-archive';

/** https://source.android.com/docs/security/features/apksigning/v2#apk-signing-block */
const BLOCK_MAGIC = 'APK Sig Block 42';
const V2_ID = 0x7109871a;
const V3_ID = 0xf05368c0;
/** Real blocks are a few KB (one certificate chain per signer, plus padding to 4 KB); more is not read. */
export const MAX_SIGNING_BLOCK_BYTES = 16 * 1024 * 1024;
/** A v1 signature file (PKCS#7 with the certificate chain) is a few KB. */
const MAX_V1_SIGNATURE_BYTES = 1024 * 1024;
/** id-value pairs looked at in a block (real ones have 2 to 5). */
const MAX_BLOCK_PAIRS = 64;

export interface ApkSigning {
  schemes: SigningScheme[];
  certificate: SigningCertificate | null;
  blockBytes: number;
  notes: string[];
}

/** `META-INF/CERT.RSA`, `.DSA`, `.EC`: a v1 signature block (its `.SF` is the signed manifest). */
export function isV1SignatureBlock(name: string): boolean {
  return /^META-INF\/[^/]+\.(RSA|DSA|EC)$/i.test(name);
}

/**
 * The schemes an APK is signed with and its signer's certificate: the first signer of the v3
 * scheme, else v2 (the APK Signing Block just before the central directory), else the first
 * certificate of the v1 PKCS#7 block. The block is only read when it declares at most
 * MAX_SIGNING_BLOCK_BYTES; anything unreadable is a note, never a refused upload.
 */
export async function readApkSigning(zip: ZipArchive, v1Blocks: ZipEntryRef[], hasSignatureFile: boolean): Promise<ApkSigning> {
  const notes: string[] = [];
  const schemes: SigningScheme[] = [];
  let certificate: SigningCertificate | null = null;
  let blockBytes = 0;
  try {
    const block = await signingBlock(zip, notes);
    if (block) {
      blockBytes = block.length;
      const pairs = blockPairs(block);
      for (const [id, scheme] of [[V2_ID, 'v2'], [V3_ID, 'v3']] as const) if (pairs.has(id)) schemes.push(scheme);
      const preferred = pairs.get(V3_ID) ?? pairs.get(V2_ID);
      if (preferred) certificate = certificateOf(firstSignerCertificate(preferred));
    }
  } catch (err) {
    if (!(err instanceof MalformedBuildError)) throw err;
    notes.push(`The APK Signing Block cannot be read (${err.message})`);
  }
  if (v1Blocks.length > 0 && hasSignatureFile) {
    schemes.unshift('v1');
    if (!certificate) {
      try {
        const pkcs7 = await zip.read(v1Blocks[0], MAX_V1_SIGNATURE_BYTES, v1Blocks[0].name);
        certificate = certificateOf(firstPkcs7Certificate(pkcs7));
      } catch (err) {
        if (!(err instanceof MalformedBuildError)) throw err;
        notes.push(`The v1 signature cannot be read (${err.message})`);
      }
    }
  }
  return { schemes, certificate, blockBytes, notes };
}

/** The block's bytes (size field to magic), or null when the APK has none. */
async function signingBlock(zip: ZipArchive, notes: string[]): Promise<Buffer | null> {
  const cdOffset = await zip.centralDirectoryOffset();
  if (cdOffset < 32) return null;
  const footer = await zip.readRange(cdOffset - 24, 24);
  if (footer.subarray(8).toString('latin1') !== BLOCK_MAGIC) return null;
  const size = Number(footer.readBigUInt64LE(0));
  const total = size + 8;
  if (size < 24 || total > cdOffset) throw new MalformedBuildError('its size points outside the archive');
  if (total > MAX_SIGNING_BLOCK_BYTES) {
    notes.push(`The APK Signing Block is larger than ${MAX_SIGNING_BLOCK_BYTES} bytes; signing was not read`);
    return null;
  }
  const block = await zip.readRange(cdOffset - total, total);
  if (Number(block.readBigUInt64LE(0)) !== size) throw new MalformedBuildError('its two size fields differ');
  return block;
}

/** The block's id → value pairs (uint64 length, uint32 id, value), every length checked. */
function blockPairs(block: Buffer): Map<number, Buffer> {
  const r: ByteReader = new ByteReader(block, 'The APK Signing Block');
  const pairs = new Map<number, Buffer>();
  const end = block.length - 24;
  let at = 8;
  while (at < end && pairs.size < MAX_BLOCK_PAIRS) {
    const length = Number(r.slice(at, 8).readBigUInt64LE(0));
    if (length < 4 || at + 8 + length > end) r.fail('a pair runs past the block');
    pairs.set(r.u32(at + 8), r.slice(at + 12, length - 4));
    at += 8 + length;
  }
  return pairs;
}

/**
 * v2 and v3 values share the start of their layout: length-prefixed signers; a signer starts with
 * its length-prefixed signed data, which starts with the digests, then the certificates.
 */
function firstSignerCertificate(value: Buffer): Buffer {
  const r: ByteReader = new ByteReader(value, 'The APK Signing Block');
  const prefixed = (at: number) => ({ start: at + 4, end: at + 4 + r.u32(at) });
  const signers = prefixed(0);
  const signer = prefixed(signers.start);
  const signedData = prefixed(signer.start);
  const digests = prefixed(signedData.start);
  const certificates = prefixed(digests.end);
  const first = prefixed(certificates.start);
  if (first.end > certificates.end || certificates.end > signedData.end || signedData.end > signer.end || signer.end > signers.end) {
    r.fail('the signer has no certificate');
  }
  return r.slice(first.start, first.end - first.start);
}

interface Der {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

function derAt(r: ByteReader, at: number): Der {
  const tag = r.u8(at);
  let length = r.u8(at + 1);
  let contentStart = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes < 1 || bytes > 4) r.fail('unsupported DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + r.u8(at + 2 + i);
    contentStart += bytes;
  }
  const end = contentStart + length;
  r.slice(contentStart, length);
  return { tag, start: at, contentStart, end };
}

function derChildren(r: ByteReader, parent: Der): Der[] {
  const children: Der[] = [];
  for (let at = parent.contentStart; at < parent.end && children.length < 16; ) {
    const child = derAt(r, at);
    children.push(child);
    at = child.end;
  }
  return children;
}

/** ContentInfo { contentType, [0] SignedData { version, digestAlgorithms, encapContentInfo, [0] certificates … } }. */
function firstPkcs7Certificate(pkcs7: Buffer): Buffer {
  const r: ByteReader = new ByteReader(pkcs7, 'The v1 signature block');
  const contentInfo = derAt(r, 0);
  const explicit = derChildren(r, contentInfo)[1];
  if (!explicit || explicit.tag !== 0xa0) r.fail('no signed data');
  const signedData = derChildren(r, explicit)[0];
  if (!signedData) r.fail('no signed data');
  const certificates = derChildren(r, signedData).find((c, i) => i >= 3 && c.tag === 0xa0);
  if (!certificates) r.fail('no certificates');
  const first = derChildren(r, certificates)[0];
  if (!first) r.fail('no certificates');
  return r.slice(first.start, first.end - first.start);
}

function certificateOf(der: Buffer): SigningCertificate {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch (err) {
    throw new MalformedBuildError(`its certificate cannot be parsed (${(err as Error).message})`);
  }
  return {
    sha256: cert.fingerprint256.replace(/:/g, '').toLowerCase(),
    subject: cert.subject.split('\n').reverse().join(', '),
  };
}
