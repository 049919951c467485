import { ChildProcess, spawn } from 'node:child_process';
import { AccessUnitSplitter } from '../../agents/protocol/annex-b';
import { MAX_VIDEO_UNIT_BYTES } from '../../agents/protocol/video-protocol';

/** Where a live video's access units go (Annex B, one picture each). */
export type AccessUnitSink = (unit: Buffer, key: boolean) => void;

/** A running live video of one session, as a backend started it. */
export interface VideoStream {
  stop(): void;
  /** Asks for a key frame soon: true when one is on its way; false when the encoder cannot be told (its next periodic one serves). */
  requestKeyFrame(): boolean;
}

export interface EncoderProcessOptions {
  command: string;
  args: string[];
  /**
   * Arguments of a standby encoder that starts encoding only when it reads a byte on stdin (ffmpeg:
   * an extra input on `pipe:0`). With them, `requestKeyFrame` wakes the standby and switches to it
   * at its first unit (an encoder starts with a key frame), then stops the first one and starts
   * the next standby: a command-line encoder cannot be told to make a key frame, a restart would
   * stall every viewer for the process's start-up (0.3–1 s for ffmpeg on a busy 2-core machine),
   * and the first encoder keeps the picture going until the second delivers.
   */
  standbyArgs?: string[];
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
  /** The standby encoder (`standbyArgs`), waiting for its byte, or woken and not yet delivering. */
  private standby: ChildProcess | null = null;
  private standbyWoken = false;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private respawnTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: EncoderProcessOptions,
    private readonly sink: AccessUnitSink,
  ) {
    this.spawn();
    this.prepareStandby();
  }

  stop(): void {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    this.child?.kill('SIGKILL');
    this.standby?.kill('SIGKILL');
    this.child = null;
    this.standby = null;
  }

  /** One key frame at a time: a request while the standby is already woken is served by it. */
  requestKeyFrame(): boolean {
    if (!this.options.standbyArgs || this.stopped) return false;
    this.prepareStandby();
    if (!this.standbyWoken) {
      this.standbyWoken = true;
      this.standby!.stdin!.end(Buffer.of(0));
    }
    return true;
  }

  private spawn(): void {
    this.child = this.startEncoder(this.options.args, false);
    if (this.options.restartEveryMs) {
      this.restartTimer = setTimeout(() => this.restart(), this.options.restartEveryMs);
    }
  }

  private prepareStandby(): void {
    if (!this.options.standbyArgs || this.standby || this.stopped) return;
    this.standbyWoken = false;
    this.standby = this.startEncoder(this.options.standbyArgs, true);
  }

  private startEncoder(args: string[], standby: boolean): ChildProcess {
    const { command, log } = this.options;
    const child = spawn(command, args, { stdio: [standby ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const splitter = new AccessUnitSplitter(
      (unit, key) => {
        if (this.standby === child && key) this.takeOver(child);
        if (this.child === child) this.sink(unit, key);
      },
      MAX_VIDEO_UNIT_BYTES,
      (bytes) => log(`${command}: dropped an access unit of over ${bytes} bytes (limit ${MAX_VIDEO_UNIT_BYTES})`),
    );
    let lastError = '';
    child.stdin?.on('error', () => undefined); // a standby killed before it was woken
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (lastError = chunk.toString('utf8').trim().split('\n').pop() ?? ''));
    child.on('error', (err) => log(`${command}: ${err.message}`));
    child.on('close', (code) => {
      // A standby that died is started again at the next request, not in a loop.
      if (this.standby === child) {
        this.standby = null;
        if (!this.stopped) log(`${command} (standby for key frames) exited (${code ?? 'signal'})${lastError ? `: ${lastError}` : ''}`);
      }
      if (this.child !== child) return;
      splitter.end();
      this.child = null;
      if (this.stopped) return;
      log(`${command} exited (${code ?? 'signal'})${lastError ? `: ${lastError}` : ''}; starting it again`);
      // A woken standby may have taken over meanwhile.
      this.respawnTimer = setTimeout(() => this.child ?? this.spawn(), 1000);
    });
    return child;
  }

  /** The standby's first key frame: it becomes the stream, the old encoder is stopped, a new standby waits. */
  private takeOver(child: ChildProcess): void {
    const old = this.child;
    this.child = child;
    this.standby = null;
    old?.kill('SIGKILL');
    this.prepareStandby();
  }

  private restart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const old = this.child;
    this.child = null;
    old?.kill('SIGKILL');
    this.spawn();
  }
}
