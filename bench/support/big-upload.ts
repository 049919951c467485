/** Shared by the upload benchmarks: a large valid APK on disk, and a streamed multipart upload of it. */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { MB, ROOT } from './relay';

/** A real APK (the aapt fixture's manifest, stored) followed by one big stored entry of pseudo-random bytes. */
export async function writeBigApk(path: string, size: number): Promise<void> {
  const manifest = await readEntry(join(ROOT, 'test', 'fixtures', 'builds', 'literal-label.apk'), 'AndroidManifest.xml');
  const out = await open(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  const addEntry = async (name: string, length: number, write: () => Promise<void>) => {
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(0, 14); // CRC is not checked when reading metadata; the relay never extracts
    local.writeUInt32LE(length, 18);
    local.writeUInt32LE(length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    await out.write(Buffer.concat([local, nameBytes]));
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt32LE(length, 20);
    header.writeUInt32LE(length, 24);
    header.writeUInt16LE(nameBytes.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, nameBytes);
    offset += 30 + nameBytes.length + length;
    await write();
  };
  await addEntry('AndroidManifest.xml', manifest.length, async () => void (await out.write(manifest)));
  const padding = Math.max(0, size - offset - 200);
  await addEntry('assets/payload.bin', padding, async () => {
    const chunk = Buffer.alloc(4 * MB);
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
    for (let left = padding; left > 0; left -= chunk.length) await out.write(chunk.subarray(0, Math.min(left, chunk.length)));
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(2, 8);
  end.writeUInt16LE(2, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  await out.write(Buffer.concat([cd, end]));
  await out.close();
}

async function readEntry(zipPath: string, name: string): Promise<Buffer> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(zipPath, { lazyEntries: true });
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName !== name) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream!.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
      });
    });
    zip.on('end', () => reject(new Error(`${name} not found`)));
    zip.readEntry();
  });
}

/** The same multipart body (one `file` field) to any server, streamed from disk. */
export function uploadFile(url: string, method: string, headers: Record<string, string>, path: string, size: number): Promise<{ code: number; body: string }> {
  const boundary = `----svcbench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.apk"\r\n` +
      `Content-Type: application/vnd.android.package-archive\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c)).on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path, { highWaterMark: MB });
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
    file.on('error', reject);
  });
}
