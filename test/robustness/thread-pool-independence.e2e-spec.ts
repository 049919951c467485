/**
 * Issue 27 item 1: a small write is not queued behind libuv's thread pool. Its file calls (the temp
 * file's open and close, the small read while inspecting a build, the rename into the data folder)
 * are quick calls from the event loop (src/common/files/quick-file-calls.ts); through the pool each
 * was also a whole event-loop turn, 10–30 ms under mixed load. Shown here with every pool thread held
 * (each blocked opening a FIFO nobody writes to yet): a comment with an image and a small APK upload
 * are still answered, and stored; before the change both waited until the pool was free.
 */
import { closeSync, constants, mkdtempSync, open, openSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachBuild } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { itUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { images } from '../support/images';
import { startTestRelay, testStorage, TestRelay } from '../support/test-relay';

/** libuv's pool size for this process (fixed at its first use). */
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const ANSWER_WITHIN_MS = 10_000;

const skipReason =
  process.platform !== 'linux'
    ? 'holds the thread pool with FIFOs (mkfifo, Linux open semantics)'
    : testStorage === 's3'
      ? 'the S3 store sends a file through the SDK, which reads it on the thread pool by design'
      : null;

/** Every thread of the pool blocked in open() on a FIFO, until release(). */
function holdThreadPool(): { release: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pool-'));
  const opened: Promise<void>[] = [];
  const fifos: string[] = [];
  for (let i = 0; i < POOL_THREADS; i++) {
    const fifo = join(dir, `fifo-${i}`);
    execFileSync('mkfifo', [fifo]);
    fifos.push(fifo);
    opened.push(
      new Promise((done) =>
        open(fifo, 'r', (err, fd) => {
          if (!err) closeSync(fd);
          done();
        }),
      ),
    );
  }
  return {
    release: async () => {
      // A writer's open lets each blocked reader's open return (non-blocking: the readers are there).
      for (const fifo of fifos) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // that reader's open already ended
        }
      }
      await Promise.all(opened);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The answer, or 'no answer' when none came within `ms`. */
function within<T>(ms: number, answer: Promise<T>): Promise<T | 'no answer'> {
  let timer: NodeJS.Timeout;
  return Promise.race([answer, new Promise<'no answer'>((done) => (timer = setTimeout(() => done('no answer'), ms)))]).finally(() => clearTimeout(timer));
}

describe('small writes and the thread pool', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let buildId: number;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    buildId = (await uploadTestBuild(members, admin)).id;
  });
  afterAll(() => relay.close());

  itUnless(skipReason, 'with every thread-pool thread held, a comment with an image and a small APK upload are answered and stored', async () => {
    const pool = holdThreadPool();
    let comment: Promise<{ status: number; body: { id?: number } }> | null = null;
    let upload: Promise<{ status: number; body: { id?: number } }> | null = null;
    try {
      // The pool really is held: a stat through it gets no answer.
      expect(await within(300, stat(relay.dataDir))).toBe('no answer');
      comment = Promise.resolve(
        members.as(admin, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'screenshot').attach('attachment', images.png(), 'p.png'),
      );
      upload = Promise.resolve(attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'literal-label.apk'));
      const [commented, uploaded] = await Promise.all([within(ANSWER_WITHIN_MS, comment), within(ANSWER_WITHIN_MS, upload)]);
      const statusOf = (answer: typeof commented) => (answer === 'no answer' ? answer : answer.status);
      expect({ comment: statusOf(commented), upload: statusOf(uploaded) }).toEqual({ comment: 201, upload: 201 });
    } finally {
      await pool.release();
      // Whatever waited for the pool finishes now, before the relay closes.
      await Promise.allSettled([comment, upload]);
    }
    // Stored for real: the attachment is served, the build is listed with its file.
    const listed = await members.as(admin, 'get', `/api/v1/comments?build_id=${buildId}`).expect(200);
    const attachment = listed.body.find((c: { body: string }) => c.body === 'screenshot').attachments[0];
    const served = await members.as(admin, 'get', attachment.file_path).expect(200);
    expect(Buffer.from(served.body)).toEqual(images.png());
    const build = (await upload!).body;
    await members.as(admin, 'get', `/api/v1/builds/${build.id}/download`).expect(200);
  });
});
