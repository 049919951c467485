import { ChildProcess, spawn } from 'node:child_process';
import { AccessUnitSplitter } from '../../agents/protocol/annex-b';
import { MAX_VIDEO_UNIT_BYTES } from '../../agents/protocol/video-protocol';

/** Where a live video's access units go (Annex B, one picture each). */
export type AccessUnitSink = (unit: Buffer, key: boolean) => void;

/** A running live video of one session, as a backend started it. */
export interface VideoStream {
  stop(): void;
  /** Asks for a key frame soon; a backend whose encoder cannot be told waits for its next periodic one. */
  requestKeyFrame(): void;
}

export interface EncoderProcessOptions {
  command: string;
  args: string[];
  /** Restart the encoder this often (screenrecord stops by itself after 3 minutes); none by default. */
  restartEveryMs?: number;
  log: (line: string) => void;
}

/**
 * An encoder writing an Annex B stream to its stdout (ffmpeg, `adb exec-out screenrecord`), cut into
 * access units. An encoder that exits by itself is started again after a short pause (a restart
 * begins with SPS, PPS and a key frame, so viewers recover at once); `restartEveryMs` restarts it
 * before a time limit. stderr is read only to log its last line when it fails.
 */
export class EncoderProcess implements VideoStream {
  private child: ChildProcess | null = null;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private respawnTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: EncoderProcessOptions,
    private readonly sink: AccessUnitSink,
  ) {
    this.spawn();
  }

  stop(): void {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  /**
   * A command-line encoder cannot be told to make a key frame; restarting it would (it starts with
   * one), but would stall every viewer for its start-up. Its periodic key frames (every 2 s for
   * --fake) serve instead, and the relay replays the current group of pictures to a new viewer.
   */
  requestKeyFrame(): void {
    return;
  }

  private spawn(): void {
    const { command, args, log } = this.options;
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const splitter = new AccessUnitSplitter(
      (unit, key) => {
        if (this.child === child) this.sink(unit, key);
      },
      MAX_VIDEO_UNIT_BYTES,
      (bytes) => log(`${command}: dropped an access unit of over ${bytes} bytes (limit ${MAX_VIDEO_UNIT_BYTES})`),
    );
    let lastError = '';
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (lastError = chunk.toString('utf8').trim().split('\n').pop() ?? ''));
    child.on('error', (err) => log(`${command}: ${err.message}`));
    child.on('close', (code) => {
      if (this.child !== child) return;
      splitter.end();
      this.child = null;
      if (this.stopped) return;
      log(`${command} exited (${code ?? 'signal'})${lastError ? `: ${lastError}` : ''}; starting it again`);
      this.respawnTimer = setTimeout(() => this.spawn(), 1000);
    });
    if (this.options.restartEveryMs) {
      this.restartTimer = setTimeout(() => this.restart(), this.options.restartEveryMs);
    }
  }

  private restart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const old = this.child;
    this.child = null;
    old?.kill('SIGKILL');
    this.spawn();
  }
}
