import { randomBytes } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import type { Readable } from 'node:stream';

export interface MultipartFile {
  /** Form field name (`file` for builds). */
  field: string;
  /** Path on disk; the file is streamed, never read whole. */
  path: string;
  /** File name sent to the relay (its extension decides the build type). */
  name: string;
  size: number;
}

/**
 * A multipart/form-data body whose length is known before sending: the text parts are small
 * buffers, the file part is a read stream of known size. So the request carries Content-Length
 * (proxies and the relay's limits see the size up front) while memory stays bounded.
 */
export class MultipartStream {
  private readonly boundary = `----svc-cli-${randomBytes(12).toString('hex')}`;
  private readonly head: Buffer;
  private readonly tail: Buffer;

  /** Without a file, the body is the text fields alone (a comment without attachment). */
  constructor(fields: Record<string, string | undefined>, private readonly file: MultipartFile | null) {
    const parts = Object.entries(fields)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `--${this.boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`);
    if (file) {
      parts.push(
        `--${this.boundary}\r\nContent-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.name)}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
    }
    this.head = Buffer.from(parts.join(''), 'utf8');
    this.tail = Buffer.from(`${file ? '\r\n' : ''}--${this.boundary}--\r\n`, 'utf8');
  }

  get contentType(): string {
    return `multipart/form-data; boundary=${this.boundary}`;
  }

  get length(): number {
    return this.head.length + (this.file?.size ?? 0) + this.tail.length;
  }

  /** Writes the body into the request with backpressure; stops reading the file if the request ends early. */
  pipeTo(req: ClientRequest, fileStream: Readable | null, onProgress?: (bytes: number) => void): void {
    req.write(this.head);
    if (!fileStream) {
      req.end(this.tail);
      return;
    }
    fileStream.on('data', (chunk: Buffer) => onProgress?.(chunk.length));
    fileStream.on('end', () => req.end(this.tail));
    fileStream.on('error', (err) => req.destroy(err));
    req.on('close', () => fileStream.destroy());
    fileStream.pipe(req, { end: false });
  }
}

/** Field and file names go inside double quotes; quotes and line breaks would break the part header. */
function quote(value: string): string {
  return value.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
}
