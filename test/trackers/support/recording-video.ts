import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why the evidence tests cannot run here (the relay cuts clips with ffmpeg), or null. */
export const ffmpegMissing = spawnSync('ffmpeg', ['-version']).status === 0 ? null : 'ffmpeg is not installed (apt-get install ffmpeg)';

/** A 40-second MP4 (a keyframe a second, so `-c copy` cuts on whole seconds). */
export function makeVideo(): Buffer {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-issue-video-')), 'v.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=40:size=160x120:rate=5', '-c:v', 'mpeg4', '-g', '5', '-movflags', '+faststart', path]);
  return readFileSync(path);
}

/** An MP4's duration in seconds (ffprobe). */
export function durationOf(bytes: Buffer): number {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-issue-clip-')), 'c.mp4');
  writeFileSync(path, bytes);
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', path], { encoding: 'utf8' }).trim());
}
