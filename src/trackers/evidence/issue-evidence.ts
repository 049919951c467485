import { Injectable } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RecordingEvidenceSource, RecordingsService } from '../../recordings/recordings.service';
import type { RecordingTimeline } from '../../recordings/recording-timeline.mapper';
import { StoragePaths } from '../../storage/storage-paths';
import type { EvidenceFile } from '../clients/tracker-client';
import type { TrackerIssueEntity } from '../tracker-issue.entity';

const run = promisify(execFile);

/** The clip a report gets when it names no range: the recording's last 30 seconds. */
export const DEFAULT_CLIP_MS = 30_000;
/** A chosen range is cut to at most this (bounded work and upload). */
export const MAX_CLIP_MS = 5 * 60_000;
/** A clip past this is left out (named in the note): trackers cap attachments, and the upload is held in memory once. */
export const MAX_CLIP_BYTES = 50 * 1024 * 1024;
/** One ffmpeg run, at most: with -c copy a cut is I/O, not decoding. */
const FFMPEG_TIMEOUT_MS = 60_000;
/** ffmpeg's output to us is its errors (-v error); kept small. */
const FFMPEG_MAX_BUFFER = 64 * 1024;

/** What a report attaches, in a temp folder the caller removes with `cleanup`. */
export interface GatheredEvidence {
  files: EvidenceFile[];
  /** What could not be attached, and why (put in the tracker beside the files). */
  notes: string[];
  cleanup(): Promise<void>;
}

/**
 * The evidence of a reported issue, cut from its recording when it is sent (not when reported: the
 * recording is kept 72 hours and a retry cuts again, so nothing but the row must survive a crash):
 * the clip (the chosen range, else the last 30 seconds; `ffmpeg -c copy`, no re-encoding, so work
 * and memory are bounded by the clip's bytes), a screenshot (one frame decoded at the range's end)
 * and the UI tree the timeline shows at that moment (live session recordings only).
 */
@Injectable()
export class IssueEvidence {
  constructor(
    private readonly recordings: RecordingsService,
    private readonly storage: StoragePaths,
  ) {}

  /** The recording a report draws on: the one named, else the newest of its session. */
  source(issue: Pick<TrackerIssueEntity, 'recordingId' | 'sessionId'>): Promise<RecordingEvidenceSource | null> {
    if (issue.recordingId !== null) return this.recordings.evidenceSource({ id: issue.recordingId });
    if (issue.sessionId !== null) return this.recordings.evidenceSource({ sessionId: issue.sessionId });
    return Promise.resolve(null);
  }

  async gather(issue: TrackerIssueEntity): Promise<GatheredEvidence> {
    const dir = await mkdtemp(join(this.storage.tmp, 'issue-'));
    const cleanup = () => rm(dir, { recursive: true, force: true });
    try {
      const files: EvidenceFile[] = [];
      const notes: string[] = [];
      const recording = await this.source(issue);
      if (!recording) {
        if (issue.recordingId !== null || issue.sessionId !== null) notes.push('The recording is no longer kept (72 hours), so no clip is attached.');
        return { files, notes, cleanup };
      }
      const extension = recording.filename.slice(recording.filename.lastIndexOf('.'));
      const video = join(dir, `source${extension}`);
      await recording.copyTo(video);
      const timeline = await recording.timeline();
      const durationMs = timeline?.durationMs ?? (await probeDurationMs(video));
      const range = clipRange(issue, durationMs);
      const base = `build-${issue.buildId}-issue-${issue.id}`;

      const clip = join(dir, `${base}-clip${extension}`);
      await ffmpeg(['-ss', seconds(range.from), '-i', video, '-t', seconds(range.to - range.from), '-map', '0', '-c', 'copy', '-avoid_negative_ts', 'make_zero', clip]);
      const clipSize = (await stat(clip)).size;
      if (clipSize > MAX_CLIP_BYTES) notes.push(`The clip (${clipSize} bytes) is larger than ${MAX_CLIP_BYTES} bytes and is not attached.`);
      else files.push({ name: `${base}-clip${extension}`, contentType: recording.mime, path: clip, size: clipSize });

      const shot = join(dir, `${base}-screenshot.png`);
      try {
        await ffmpeg(['-ss', seconds(Math.max(0, range.to - 200)), '-i', video, '-frames:v', '1', '-update', '1', shot]);
        files.push({ name: `${base}-screenshot.png`, contentType: 'image/png', path: shot, size: (await stat(shot)).size });
      } catch {
        notes.push('No frame could be read at the end of the range, so no screenshot is attached.');
      }

      const tree = treeAt(timeline, range.to);
      if (tree) {
        const path = join(dir, `${base}-ui-tree.json`);
        await writeFile(path, JSON.stringify(tree, null, 2));
        files.push({ name: `${base}-ui-tree.json`, contentType: 'application/json', path, size: (await stat(path)).size });
      } else notes.push(timeline ? 'The timeline holds no UI tree before that moment.' : 'An uploaded recording has no UI tree (only live session recordings do).');
      notes.unshift(`Clip: ${seconds(range.from)} s to ${seconds(range.to)} s of recording #${recording.id}.`);
      return { files, notes, cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  }
}

/** The range to cut, in ms of the recording: the chosen one (clamped, at most MAX_CLIP_MS), else the last 30 seconds. */
export function clipRange(issue: Pick<TrackerIssueEntity, 'fromMs' | 'toMs'>, durationMs: number): { from: number; to: number } {
  const to = Math.min(issue.toMs ?? durationMs, durationMs);
  const from = Math.max(0, issue.fromMs ?? to - DEFAULT_CLIP_MS, to - MAX_CLIP_MS);
  return { from: Math.min(from, to), to };
}

/** The UI tree shown at `atMs`: the timeline's last snapshot at or before it. */
export function treeAt(timeline: RecordingTimeline | null, atMs: number): unknown {
  const shown = timeline?.snapshots.filter((s) => s.at <= atMs).pop();
  return shown ? { at: shown.at, tree: shown.tree } : null;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

async function ffmpeg(args: string[]): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args], { timeout: FFMPEG_TIMEOUT_MS, maxBuffer: FFMPEG_MAX_BUFFER, killSignal: 'SIGKILL' });
}

async function probeDurationMs(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', path], {
    timeout: FFMPEG_TIMEOUT_MS,
    maxBuffer: FFMPEG_MAX_BUFFER,
    killSignal: 'SIGKILL',
  });
  const duration = Number.parseFloat(stdout.trim());
  if (!Number.isFinite(duration)) throw new Error('ffprobe could not read the recording\'s duration');
  return Math.round(duration * 1000);
}
