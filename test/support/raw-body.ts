import type { Response } from 'superagent';

/** supertest parser that keeps a binary body (images, video) as one Buffer, for byte-for-byte checks. */
export function rawBody(res: Response, done: (err: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}
