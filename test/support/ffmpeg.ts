import { spawnSync } from 'node:child_process';

/** Why the fake agent's live video cannot run here (Debian's ffmpeg with libx264, installed by .ci/run), or null. */
export function ffmpegSkipReason(): string | null {
  const encoders = spawnSync('ffmpeg', ['-hide_banner', '-encoders'], { encoding: 'utf8' }).stdout ?? '';
  return encoders.includes('libx264') ? null : 'ffmpeg with libx264 is not installed (apt-get install ffmpeg)';
}
