import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, utimes } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no types; the little used here is typed by hand below.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');

/** Credentials s3rver accepts (its fixed test account). */
export const S3_TEST_ACCESS_KEY = 'S3RVER';
export const S3_TEST_SECRET_KEY = 'S3RVER';

export interface TestS3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** The relay's settings for this server (SVC_STORAGE_URL with `prefix`, endpoint, path style, credentials). */
  env(prefix?: string): Record<string, string>;
  /** Keys of the objects in the bucket, sorted. */
  objectKeys(): Promise<string[]>;
  /** Multipart uploads started and neither completed nor aborted (ListMultipartUploads). */
  pendingUploads(): Promise<string[]>;
  /** From now on, UploadPart number `partNumber` is answered 500 InternalError (null: parts succeed again). */
  failUploadPart(partNumber: number | null): void;
  /** Sets an object's Last-Modified into the past (s3rver reports the object file's mtime). */
  backdate(key: string, ageMs: number): Promise<void>;
  close(): Promise<void>;
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
  type: string;
  body: unknown;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

/**
 * A real S3-protocol server on loopback (the `s3rver` package, objects in a temp folder) with one
 * bucket, for the relay's object-storage backend. s3rver implements multipart upload and ranged
 * GET but not AbortMultipartUpload nor ListMultipartUploads; both are added here over its own
 * folder of pending uploads (`<bucket>/._S3rver_uploads/<uploadId>/`), as S3 answers them, so the
 * relay's aborts really free the parts and the tests can list what is left pending.
 */
export async function startTestS3Server(bucket = 'svc-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const uploadsDir = join(directory, bucket, '._S3rver_uploads');
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  let failingPart: number | null = null;
  const multipartExtras: KoaMiddleware = async (ctx, next) => {
    const [, ctxBucket, ...keyParts] = ctx.path.split('/');
    if (ctx.method === 'PUT' && ctx.query.uploadId && Number(ctx.query.partNumber) === failingPart) {
      ctx.status = 500;
      ctx.type = 'application/xml';
      ctx.body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected by the test</Message></Error>';
      return;
    }
    if (ctxBucket === bucket && ctx.method === 'DELETE' && ctx.query.uploadId && keyParts.length) {
      await rm(join(uploadsDir, ctx.query.uploadId.replace(/[^0-9a-f]/g, '')), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    if (ctxBucket === bucket && ctx.method === 'GET' && 'uploads' in ctx.query && !keyParts.length) {
      const uploads = await listPending(uploadsDir);
      ctx.type = 'application/xml';
      ctx.body =
        `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>` +
        uploads.map((u) => `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${u.id}</UploadId></Upload>`).join('') +
        `</ListMultipartUploadsResult>`;
      return;
    }
    await next();
  };
  (server as { middleware: KoaMiddleware[] }).middleware.unshift(multipartExtras);
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  process.env.AWS_ACCESS_KEY_ID ??= S3_TEST_ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY ??= S3_TEST_SECRET_KEY;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return {
    endpoint,
    bucket,
    // The credentials also go to this process's environment (the AWS SDK's default chain): test
    // helpers that open the relay's store themselves use them.
    env: (prefix = '') => ({
      SVC_STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      SVC_S3_ENDPOINT: endpoint,
      SVC_S3_REGION: 'us-east-1',
      SVC_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3_TEST_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: S3_TEST_SECRET_KEY,
      // The SDK warns on stderr that its 2027 releases need Node 22; CLI tests expect a quiet stderr.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    }),
    objectKeys: async () => (await walkObjects(join(directory, bucket), '')).sort(),
    pendingUploads: async () => (await listPending(uploadsDir)).map((u) => `${u.key} (${u.id})`),
    failUploadPart: (partNumber) => {
      failingPart = partNumber;
    },
    backdate: async (key, ageMs) => {
      const past = new Date(Date.now() - ageMs);
      await utimes(join(directory, bucket, `${key}._S3rver_object`), past, past);
    },
    close: async () => {
      await new Promise<void>((done) => (server.httpServer as Server).close(() => done()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function listPending(uploadsDir: string): Promise<Array<{ id: string; key: string }>> {
  const ids = await readdir(uploadsDir).catch(() => [] as string[]);
  return Promise.all(ids.map(async (id) => ({ id, key: await readFile(join(uploadsDir, id, 'key'), 'utf8').catch(() => '?') })));
}

/** s3rver keeps an object `a/b` as `<bucket>/a/b._S3rver_object` (plus metadata files beside it). */
async function walkObjects(dir: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (entry.isDirectory() && entry.name !== '._S3rver_uploads') found.push(...(await walkObjects(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else if (entry.isFile() && entry.name.endsWith('._S3rver_object')) found.push(prefix + entry.name.slice(0, -'._S3rver_object'.length));
  }
  return found;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
