import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The relay forgets a partial upload 24 h after its creation; so does this file. */
const KEEP_MS = 24 * 60 * 60 * 1000;

interface Saved {
  location: string;
  savedAt: number;
}

/**
 * Where `svc upload` remembers its unfinished resumable uploads, so running the same command again
 * (same relay, file, size, modification time and fields) continues the upload instead of starting
 * over: `$XDG_STATE_HOME/svc/resumable-uploads.json` (default `~/.local/state/svc/`). Holds upload
 * paths only, never a token. Unreadable or corrupt state counts as empty: resuming is a bonus.
 */
export class ResumeState {
  private readonly file: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
    this.file = join(base, 'svc', 'resumable-uploads.json');
  }

  /** The key of one upload: everything that must match for its bytes and fields to be the same. */
  static keyOf(parts: { baseUrl: string; path: string; size: number; mtimeMs: number; fields: Record<string, string | undefined> }): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  get(key: string): string | null {
    return this.load()[key]?.location ?? null;
  }

  set(key: string, location: string): void {
    this.save({ ...this.load(), [key]: { location, savedAt: Date.now() } });
  }

  delete(key: string): void {
    const entries = this.load();
    if (!(key in entries)) return;
    delete entries[key];
    this.save(entries);
  }

  private load(): Record<string, Saved> {
    try {
      const entries = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, Saved>;
      const fresh = Object.entries(entries).filter(([, saved]) => typeof saved?.location === 'string' && Date.now() - saved.savedAt < KEEP_MS);
      return Object.fromEntries(fresh);
    } catch {
      return {};
    }
  }

  private save(entries: Record<string, Saved>): void {
    try {
      mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(entries), { mode: 0o600 });
      renameSync(temp, this.file);
    } catch {
      // A read-only home (a CI container) only loses resuming across runs.
    }
  }
}
