import { createHash } from 'node:crypto';
import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../agents/protocol/ui-tree';
import type { DeviceAction } from './device-actions';
import { BackendError, Capture, DeviceBackend, DeviceEventSink, DownloadedBuild, StreamOptions } from './device-backend';
import { solidPng } from './png-image';
import { AccessUnitSink, EncoderProcess, VideoStream } from './encoder-process';
import { onPath } from './run-tool';

/** The fake devices' live video: a synthetic picture of this size and rate (issue 29's 720×1600 at 30 fps). */
export interface FakeVideoOptions {
  /** false: `stream_start` answers `unsupported`, as an agent without video does (the dashboard then shows screenshots). */
  enabled?: boolean;
  width?: number;
  height?: number;
  fps?: number;
  /** Seconds between periodic key frames (2); `stream_keyframe` makes one at once whatever this is. */
  keyFrameSeconds?: number;
  /**
   * A rate cap (kbit/s) as a device encoder has one. None: fitted to the picture (fittedBitrate),
   * under the relay's `maxBitrate`. (libx264's own constant quality made ~10 Mbit/s of the test pattern.)
   */
  bitrateKbps?: number;
  /** What is on the screen (fakePicture): ffmpeg's moving test pattern (default), or an app's list that scrolls now and then. */
  picture?: FakePicture;
  ffmpeg?: string;
  log?: (line: string) => void;
}

/** An 8×8 baseline JPEG (made with ffmpeg from a solid colour); the same bytes every time. */
const FAKE_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgQEBMQExYWFhYWFhoYGhsbGxoaGhobGxsdHR0iIiIdHR0bGx0dICAiIiUmJSMjIiMmJigoKDAwLi44ODpFRVP/xABLAAEBAAAAAAAAAAAAAAAAAAAABQEBAAAAAAAAAAAAAAAAAAAABhABAAAAAAAAAAAAAAAAAAAAABEBAAAAAAAAAAAAAAAAAAAAAP/AABEIAAgACAMBIgACEQADEQD/2gAMAwEAAhEDEQA/AIIB2Ov/2Q==',
  'base64',
);

/**
 * Deterministic devices for tests and demos (`svc agent --fake`): the same list, images and trees
 * on every run, so a test can compare bytes end to end. Session ids carry the agent's name, so two
 * fake agents never claim the same session.
 */
export class FakeBackend implements DeviceBackend {
  readonly name = 'fake';
  private readonly devices: DeviceInfo[];
  private sink: DeviceEventSink = () => undefined;

  /**
   * `androidDevices` (`svc agent --fake --fake-devices <n>`): booted Android devices beyond the one
   * every fake agent has (`fake-android-<agent>-2`, `-3`, …), for parallel hub sessions.
   */
  constructor(
    agentName: string,
    private readonly video: FakeVideoOptions = {},
    androidDevices = 1,
  ) {
    this.devices = [
      { sessionId: `fake-ios-${agentName}`, name: 'iPhone 16', platform: 'ios', state: 'booted', osVersion: '18.2' },
      { sessionId: `fake-android-${agentName}`, name: 'Pixel 8', platform: 'android', state: 'booted', osVersion: '15' },
      { sessionId: `fake-off-${agentName}`, name: 'iPad Air', platform: 'ios', state: 'shutdown', osVersion: '17.5' },
    ];
    for (let n = 2; n <= androidDevices; n++) {
      this.devices.push({ sessionId: `fake-android-${agentName}-${n}`, name: `Pixel 8 (${n})`, platform: 'android', state: 'booted', osVersion: '15' });
    }
  }

  owns(sessionId: string): boolean {
    return this.devices.some((d) => d.sessionId === sessionId);
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return this.devices.map((d) => ({ ...d }));
  }

  async screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture> {
    this.booted(sessionId);
    return format === 'jpeg' ? { mime: 'image/jpeg', data: FAKE_JPEG } : { mime: 'image/png', data: fakePng(sessionId) };
  }

  async uiTree(sessionId: string): Promise<UiElement[]> {
    this.booted(sessionId);
    return fakeUiTree();
  }

  /** Every input action succeeds on a booted device and is echoed as an event named after it (`tapped` for tap). */
  async perform(sessionId: string, action: DeviceAction): Promise<unknown> {
    this.booted(sessionId);
    const { method, ...data } = action;
    this.sink(sessionId, method === 'tap' ? 'tapped' : method, data);
    return {};
  }

  /** Downloads the build for real and answers with its size and SHA-256, so a test can compare bytes end to end. */
  async install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>> {
    this.booted(sessionId);
    const build = await download();
    const result = { installed: true, fileName: build.fileName, bytes: build.bytes, sha256: build.sha256 };
    this.sink(sessionId, 'installed', result);
    return result;
  }

  onEvent(sink: DeviceEventSink): void {
    this.sink = sink;
  }

  /**
   * A moving test picture with the frame number and the capture clock drawn on it, encoded by
   * ffmpeg's libx264 (baseline, zero latency, one slice per picture, periodic key frames, an access
   * unit delimiter before each picture) at the real rate (`-re`). A key frame on request comes from a
   * standby ffmpeg taking over (EncoderProcess): the picture's frame counter and pattern start again.
   */
  async startStream(sessionId: string, sink: AccessUnitSink, options: StreamOptions = {}): Promise<VideoStream> {
    this.booted(sessionId);
    if (this.video.enabled === false) throw new BackendError('unsupported', 'Live video is off for this fake agent');
    const ffmpeg = this.video.ffmpeg ?? 'ffmpeg';
    if (!(ffmpeg.includes('/') || (await onPath(ffmpeg)))) {
      throw new BackendError('unsupported', 'Live video of fake devices needs ffmpeg with libx264 (apt-get install ffmpeg)');
    }
    const { width = 720, height = 1600, fps = 30, keyFrameSeconds = 2, picture = 'test-pattern' } = this.video;
    const kbps = this.video.bitrateKbps ?? Math.round(fittedBitrate(width, height, fps, options.maxBitrate) / 1000);
    // The standby (a key frame on request) opens a second input on stdin and so starts encoding at its first byte.
    const args = (standby: boolean) => [
      ...['-hide_banner', '-loglevel', 'error', ...(standby ? [] : ['-nostdin']), '-re'],
      ...['-f', 'lavfi', '-i', fakePicture(picture, width, height, fps)],
      ...(standby ? ['-f', 'u8', '-ar', '1000', '-ac', '1', '-i', 'pipe:0', '-map', '0:v'] : []),
      ...['-vf', fakeOverlay(sessionId, width, true)],
      ...fakeEncoderArgs(fps * keyFrameSeconds, kbps),
      ...['-bsf:v', 'h264_mp4toannexb', '-f', 'h264', '-'],
    ];
    return new EncoderProcess({ command: ffmpeg, args: args(false), standbyArgs: args(true), log: this.video.log ?? (() => undefined) }, sink);
  }

  private booted(sessionId: string): void {
    const device = this.devices.find((d) => d.sessionId === sessionId);
    if (!device) throw new BackendError('not_found', `No device ${sessionId}`);
    if (device.state !== 'booted') throw new BackendError('not_booted', 'Device is not booted');
  }
}

export type FakePicture = 'test-pattern' | 'app';

/**
 * The fake screen as an ffmpeg lavfi source. `test-pattern` (testsrc2) changes every pixel in every
 * frame: the worst case for a video codec, and what tests look for (colour bars). `app` is what a
 * device under review mostly shows: a list of builds, still for two seconds, then scrolled for one
 * (a 3-second cycle, so bench/video's 3-second quality sample holds a whole one).
 */
export function fakePicture(picture: FakePicture, width: number, height: number, fps: number): string {
  if (picture === 'test-pattern') return `testsrc2=size=${width}x${height}:rate=${fps}`;
  const row = Math.round(height / 10);
  const rows = 24;
  const lines = (line: (i: number) => string) => Array.from({ length: rows }, (_, i) => line(i)).join('\n').replace(/:/g, '\\:');
  const title = lines((i) => `Checkout ${3 + (i % 4)}.${i % 10}.${(i * 7) % 13} (${4120 + i * 3})`);
  const detail = lines((i) => `${i % 2 ? 'android' : 'ios'} · ${['Backlog', 'In Progress', 'Done', 'Rejected'][i % 4]} · ${i + 2} min ago`);
  const big = Math.round(row * 0.21);
  const small = Math.round(row * 0.16);
  return [
    // The list is drawn once and that one frame repeated (drawing it each frame held ffmpeg to ~18 fps).
    `color=c=white:size=${width}x${rows * row}:rate=${fps}:duration=${1 / fps}`,
    `drawbox=x=${Math.round(row * 0.15)}:y=0:w=${Math.round(row * 0.6)}:h=ih:c=0x5b8def:t=fill`,
    `drawgrid=w=${width}:h=${row}:t=${Math.round(row * 0.2)}:c=white`,
    `drawgrid=w=${width}:h=${row}:t=1:c=0xd1d1d6`,
    `drawtext=text='${title}':fontsize=${big}:fontcolor=0x1c1c1e:x=${Math.round(row * 0.9)}:y=${Math.round(row * 0.25)}:line_spacing=${row - big}`,
    `drawtext=text='${detail}':fontsize=${small}:fontcolor=0x8e8e93:x=${Math.round(row * 0.9)}:y=${Math.round(row * 0.58)}:line_spacing=${row - small}`,
    'loop=loop=-1:size=1:start=0',
    `setpts=N/(${fps}*TB)`,
    // Still for 2 s, then scrolled by 2.5 rows in 1 s; back at the top after the list's end.
    `crop=${width}:${height}:0:'mod(${Math.round(row * 2.5)}*(floor(t/3)+max(0,mod(t,3)-2)),${(rows - 10) * row})'`,
  ].join(',');
}

/** The text drawn on the fake picture: session id, frame number and (`clock`) the capture clock. */
export function fakeOverlay(sessionId: string, width: number, clock: boolean): string {
  const text = `${sessionId}  frame %{frame_num}${clock ? '  %{localtime\\:%X}' : ''}`;
  return `drawtext=text='${text}':fontsize=${Math.max(12, Math.round(width / 24))}:fontcolor=white:box=1:boxcolor=black@0.6:x=10:y=h/3`;
}

/**
 * The fake agent's encoder settings (ffmpeg output options), also used by bench/video.ts to encode
 * the same frames offline: libx264 baseline, ultrafast, zero latency, one slice per picture, an
 * access unit delimiter before each, a key frame every `keyInterval` frames, optionally a rate cap.
 */
export function fakeEncoderArgs(keyInterval: number, bitrateKbps?: number): string[] {
  const interval = Math.max(1, Math.round(keyInterval));
  return [
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-profile:v', 'baseline', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p'],
    ...(bitrateKbps ? ['-b:v', `${bitrateKbps}k`, '-maxrate', `${bitrateKbps}k`, '-bufsize', `${Math.round(bitrateKbps / 2)}k`] : []),
    ...['-x264-params', `keyint=${interval}:min-keyint=${interval}:scenecut=0:sliced-threads=0:aud=1`],
  ];
}

/** Bits per pixel per frame a screen needs to stay legible (text and lists; the test pattern gets blockier). */
const BITS_PER_PIXEL = 0.05;
/** A small picture still needs this much to be readable. */
const MIN_BITRATE = 200_000;

/** A rate fitted to the picture (bit/s), kept under the relay's budget when it gave one: 720×1600 at 30 fps wants 1.7 Mbit/s, the default budget allows 0.70. */
export function fittedBitrate(width: number, height: number, fps: number, maxBitrate?: number): number {
  const fitted = Math.max(MIN_BITRATE, Math.round(width * height * fps * BITS_PER_PIXEL));
  return maxBitrate ? Math.min(fitted, maxBitrate) : fitted;
}

/** The fake PNG of a session: 32×64, its colour derived from the session id. */
export function fakePng(sessionId: string): Buffer {
  const [r, g, b] = createHash('sha256').update(sessionId).digest();
  return solidPng(32, 64, [r, g, b]);
}

export function fakeUiTree(): UiElement[] {
  return [
    { role: 'window', label: '', identifier: 'root', frame: { x: 0, y: 0, width: 1, height: 1 }, enabled: true },
    {
      role: 'button',
      label: 'Sign in',
      identifier: 'login_button',
      frame: { x: 0.1, y: 0.8, width: 0.8, height: 0.075 },
      enabled: true,
    },
    {
      role: 'text',
      label: 'Welcome',
      identifier: 'title',
      frame: { x: 0.1, y: 0.1, width: 0.8, height: 0.05 },
      enabled: true,
    },
  ];
}
