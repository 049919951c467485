/**
 * The data disk's free-space reserve: builds (multipart and resumable) and recordings (the large
 * uploads) are refused with 507 when the declared size would eat into the last 64 MB, before a
 * byte is written.
 * The limits are raised so that the size limit (413) is not what answers.
 */
import { existsSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { DISK_RESERVE_BYTES } from '../../src/common/multipart/multipart-receiver';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { send } from './support/http';

const HUGE = String(2 ** 52);

describe('free-disk reserve on the large uploads (507)', () => {
  let relay: TestRelay;
  let credentials: Record<string, Record<string, string>>;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_MAX_BUILD_BYTES: HUGE, SVC_MAX_RECORDING_BYTES: HUGE });
    const members = new MemberFactory(relay);
    const developer = await members.member('Developer');
    credentials = {
      build: { authorization: `Bearer ${await members.pat(developer, 'view,builds:write')}` },
      recording: { cookie: developer.cookie }, // recordings take a session cookie
    };
  });
  afterAll(() => relay.close());

  const free = () => {
    const stats = statfsSync(join(relay.dataDir, 'tmp'));
    return stats.bavail * stats.bsize;
  };

  /**
   * A size that fits on the disk but not beside the reserve. One byte under what is free, so the
   * answer stays 507 unless the disk gains a whole reserve (64 MB) between our look and the relay's:
   * other suites free space all the time (a margin of 1 MB was overtaken once, and the relay then
   * waited for a body that never came).
   */
  const fitsOnDiskNotBesideReserve = () => {
    const declared = free() - 1;
    expect(declared).toBeGreaterThan(DISK_RESERVE_BYTES);
    return declared;
  };

  it.each([
    ['build', '/api/v1/builds'],
    ['recording', '/api/v1/recordings/upload'],
  ])('a %s that would leave less than the reserve free is refused before any byte is written', async (what, path) => {
    const declared = fitsOnDiskNotBesideReserve();
    const res = await send(relay.url, {
      method: 'POST',
      path,
      headers: {
        ...credentials[what],
        'content-type': 'multipart/form-data; boundary=reserve',
        'content-length': String(declared),
      },
    });
    expect(res.status).toBe(507);
    expect(JSON.parse(res.text)).toEqual({ error: 'Not enough disk space on the relay to store this upload' });
    expect(readdirSync(join(relay.dataDir, 'tmp'))).toEqual([]);
  });

  it('a resumable (tus) build whose Upload-Length would eat into the reserve is refused at creation', async () => {
    const declared = fitsOnDiskNotBesideReserve();
    const res = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/uploads/builds',
      headers: {
        ...credentials.build,
        'tus-resumable': '1.0.0',
        'upload-length': String(declared),
        'upload-metadata': `filename ${Buffer.from('big.apk').toString('base64')}`,
      },
    });
    expect(res.status).toBe(507);
    expect(JSON.parse(res.text)).toEqual({ error: 'Not enough disk space on the relay to store this upload' });
    const tus = join(relay.dataDir, 'tmp', 'tus');
    expect(readdirSync(join(relay.dataDir, 'tmp')).filter((name) => name !== 'tus')).toEqual([]);
    expect(existsSync(tus) ? readdirSync(tus) : []).toEqual([]);
  });
});
