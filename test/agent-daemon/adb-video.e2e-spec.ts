/**
 * The adb backend's live video (docs/agents.md "Live video"): `adb exec-out screenrecord
 * --output-format=h264 … -` cut into access units. No Android device is on this machine, so a
 * stand-in adb runs the command through `sh -c` as adbd does, and the device's `screenrecord` is a
 * stand-in that writes what a device encoder writes: Annex B without access unit delimiters.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbBackend } from '../../src/agent-daemon/backends/adb-backend';
import { isKeyFrame, nalType, nalUnits, NAL_AUD } from '../../src/agents/protocol/annex-b';
import { describeUnless } from '../support/describe-unless';
import { ffmpegSkipReason } from '../support/ffmpeg';

const FRAMES = 45;

describeUnless(ffmpegSkipReason(), 'reference agent, adb backend: live video from screenrecord', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-adb-video-'));
    for (const sub of ['bin', 'device-bin']) mkdirSync(join(dir, sub));
    // What a device's encoder writes: no AUDs, a key frame every 30 pictures, one slice each.
    const encoded = spawnSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', 'testsrc2=size=180x400:rate=30', '-frames:v', String(FRAMES)],
      ...['-c:v', 'libx264', '-profile:v', 'baseline', '-x264-params', 'keyint=30:scenecut=0:sliced-threads=0:aud=0', '-f', 'h264', join(dir, 'screen.h264')],
    ]);
    if (encoded.status !== 0) throw new Error(encoded.stderr.toString());
    const script = (path: string, body: string) => {
      writeFileSync(path, `#!/bin/sh\n${body}\n`);
      chmodSync(path, 0o755);
    };
    // `exec` twice: killing the stand-in then ends the recording, as killing the real adb client ends it on
    // the device (dash's `sh -c` forks the command, which would keep the stream's pipes open for its 30 s).
    script(join(dir, 'bin', 'adb'), `[ "$1" = -s ] && shift 2\nshift\ncd ${JSON.stringify(dir)} && PATH="${join(dir, 'device-bin')}:/usr/bin:/bin" exec sh -c "exec $*"`);
    // It keeps recording (no end, no restart): the last picture waits for the next one to begin.
    script(join(dir, 'device-bin', 'screenrecord'), `printf '%s\\n' "$*" > ran.log\ncat screen.h264\nexec sleep 30`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('asks the device for raw H.264 on stdout at the relay\'s bit rate and passes each picture on as one access unit, key frames marked', async () => {
    const units: { unit: Buffer; key: boolean }[] = [];
    const backend = new AdbBackend(join(dir, 'bin', 'adb'));
    const stream = await backend.startStream('android-emulator-5554', (unit, key) => units.push({ unit, key }), { maxBitrate: 699_050 });
    try {
      const deadline = Date.now() + 10_000;
      while (units.length < FRAMES - 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      stream.stop();
    }
    expect(readFileSync(join(dir, 'ran.log'), 'utf8')).toBe('--output-format=h264 --time-limit 180 --bit-rate 699050 -\n');
    expect(units).toHaveLength(FRAMES - 1);
    expect(units.map((u, i) => [i, u.key])).toEqual(units.map((u, i) => [i, i % 30 === 0]));
    expect(units.every((u) => u.key === isKeyFrame(u.unit))).toBe(true);
    // Whole pictures: every unit holds exactly one slice, and the stream had no delimiters to cut at.
    expect(units.every((u) => nalUnits(u.unit).filter((n) => [1, 5].includes(nalType(n))).length === 1)).toBe(true);
    expect(units.some((u) => nalUnits(u.unit).some((n) => nalType(n) === NAL_AUD))).toBe(false);
  }, 20_000);
});
