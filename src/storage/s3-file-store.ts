import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  NotFound,
  NoSuchKey,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { S3StorageConfig } from '../config/relay-config';
import { ByteRange, FileStore } from './file-store';

/** Multipart part size: S3's minimum is 5 MiB; 8 MiB × 4 parts in flight bounds memory per upload at 32 MiB. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;
/** DeleteObjects takes at most 1000 keys a request. */
const DELETE_BATCH = 1000;

/**
 * S3-compatible object storage (`SVC_STORAGE_URL=s3://bucket/prefix`): a key becomes the object
 * `<prefix>/<key>` in the bucket. Credentials come from the SDK's default chain
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an instance or pod role).
 */
export class S3FileStore extends FileStore {
  private readonly client: S3Client;

  constructor(private readonly config: S3StorageConfig) {
    super();
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      forcePathStyle: config.forcePathStyle,
      // S3-compatible servers (an endpoint is set) often lack the SDK's newer default of streaming
      // checksums (aws-chunked bodies with trailers): send and check checksums only where S3 requires them.
      ...(config.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
    });
  }

  get location(): string {
    return `s3://${this.config.bucket}/${this.config.prefix}`;
  }

  /**
   * Streams the local file up as a multipart upload (parts of PART_SIZE, never the whole file in
   * memory). On failure lib-storage aborts the multipart upload, so no parts stay pending.
   */
  async put(key: string, localPath: string, contentType?: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: this.objectKey(key), Body: createReadStream(localPath), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
    await unlink(localPath).catch(() => undefined);
  }

  async stat(key: string): Promise<{ size: number; modifiedMs: number } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0, modifiedMs: head.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.config.bucket,
        Key: this.objectKey(key),
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    if (!(answer.Body instanceof Readable)) throw new Error(`S3 returned no readable body for ${key}`);
    return answer.Body;
  }

  async remove(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const answer = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.config.bucket,
          Delete: { Objects: batch.map((key) => ({ Key: this.objectKey(key) })), Quiet: true },
        }),
      );
      const failed = (answer.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`S3 refused to delete ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''}`);
    }
  }

  async *list(prefix: string): AsyncIterable<string> {
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.config.bucket, Prefix: this.objectKey(prefix), Delimiter: '/' },
    );
    const strip = this.objectKey('').length;
    for await (const page of pages) {
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key.slice(strip);
    }
  }

  localPath(): null {
    return null;
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.config.bucket }));
  }

  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    return this.config.prefix ? `${this.config.prefix}/${key}` : key;
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof NotFound || err instanceof NoSuchKey || (err as { name?: string })?.name === 'NotFound';
}
