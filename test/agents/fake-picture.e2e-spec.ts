/**
 * The fake agent's `app` picture (bench/video's source for the bytes target, bench/results/2026-11-27-98e37a9-video.md):
 * rendered by Debian's ffmpeg, it must be still for 2 s and scroll for 1 s (its speed is bench/video's).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fakePicture } from '../../src/agent-daemon/backends/fake-backend';
import { describeUnless } from '../support/describe-unless';
import { ffmpegSkipReason } from '../support/ffmpeg';

/** One digest per frame of the first `frames` frames (small grey frames: enough to tell still from moving). */
function frameDigests(source: string, frames: number): string[] {
  const run = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', source, '-frames:v', String(frames), '-vf', 'scale=90:200', '-pix_fmt', 'gray', '-f', 'rawvideo', '-'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`ffmpeg: ${run.stderr.toString()}`);
  const size = 90 * 200;
  return Array.from({ length: run.stdout.length / size }, (_, i) => createHash('sha1').update(run.stdout.subarray(i * size, (i + 1) * size)).digest('hex'));
}

describeUnless(ffmpegSkipReason(), "the fake agent's app picture", () => {
  it('is still for the first 2 s of each 3 s and moves in the third', () => {
    const frames = frameDigests(fakePicture('app', 720, 1600, 30), 180);
    expect(frames).toHaveLength(180);
    for (const cycle of [0, 90]) {
      expect(new Set(frames.slice(cycle, cycle + 60)).size).toBe(1);
      expect(new Set(frames.slice(cycle + 60, cycle + 90)).size).toBeGreaterThan(25);
    }
    expect(frames[90]).not.toBe(frames[0]);
  });
});
