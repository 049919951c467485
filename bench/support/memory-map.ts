/** Where a Linux process's resident memory is, and V8's full collections read from its --trace-gc lines. */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const KB = 1024;
/** glibc's non-main malloc arenas are heaps of HEAP_MAX_SIZE (2 × 32 MB on 64-bit), mapped at that alignment. */
const ARENA_HEAP = 64 * KB * KB;

export interface MemoryMap {
  /** Sum of every mapping's Rss, MB. */
  rssMb: number;
  /** Mapped files: the node binary, shared libraries, ICU data. */
  fileMb: number;
  /** `[heap]`: the main thread's malloc arena (SQLite's page cache and statements, Node's own). */
  mainArenaMb: number;
  /** Other threads' malloc arenas (anonymous 64 MB-aligned heaps, the read-write part and its reserved rest). */
  arenas: number;
  arenasMb: number;
  /** Thread stacks: `[stack]` and anonymous read-write mappings right after a one-page guard. */
  stacksMb: number;
  /** The rest of the anonymous memory: V8's heap pages and code, large mallocs mapped on their own (Buffers). */
  otherAnonMb: number;
  threads: number;
}

interface Mapping {
  start: number;
  end: number;
  perms: string;
  path: string;
  rssKb: number;
}

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      current = { start: parseInt(header[1], 16), end: parseInt(header[2], 16), perms: header[3], path: header[4], rssKb: 0 };
      out.push(current);
    } else if (current && line.startsWith('Rss:')) {
      current.rssKb = Number(/(\d+)/.exec(line)![1]);
    }
  }
  return out;
}

/** /proc/<pid>/smaps summed by kind; null where there is no /proc (or the process is gone). */
export function memoryMap(pid: number): MemoryMap | null {
  let maps: Mapping[];
  let threads: number;
  try {
    maps = mappings(pid);
    threads = readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return null;
  }
  const kb = { file: 0, main: 0, arenas: 0, stacks: 0, other: 0 };
  let arenas = 0;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    const next = maps[i + 1];
    const previous = maps[i - 1];
    const anonymous = m.path === '';
    if (m.path === '[heap]') kb.main += m.rssKb;
    else if (m.path === '[stack]') kb.stacks += m.rssKb;
    else if (!anonymous) kb.file += m.rssKb;
    else if (
      m.perms.startsWith('rw') &&
      m.start % ARENA_HEAP === 0 &&
      (m.end - m.start === ARENA_HEAP || (next && next.path === '' && next.perms.startsWith('---') && next.start === m.end && next.end - m.start === ARENA_HEAP))
    ) {
      arenas++;
      kb.arenas += m.rssKb;
    } else if (m.perms.startsWith('rw') && previous && previous.path === '' && previous.perms.startsWith('---') && previous.end === m.start && previous.end - previous.start === 4 * KB) {
      kb.stacks += m.rssKb;
    } else kb.other += m.rssKb;
  }
  const mb = (n: number) => n / KB;
  return {
    rssMb: mb(kb.file + kb.main + kb.arenas + kb.stacks + kb.other),
    fileMb: mb(kb.file),
    mainArenaMb: mb(kb.main),
    arenas,
    arenasMb: mb(kb.arenas),
    stacksMb: mb(kb.stacks),
    otherAnonMb: mb(kb.other),
    threads,
  };
}

export function describeMemoryMap(map: MemoryMap | null): string {
  if (!map) return 'no /proc smaps';
  const f = (n: number) => n.toFixed(0);
  return (
    `RSS ${f(map.rssMb)} MB = files ${f(map.fileMb)} + main malloc arena ${f(map.mainArenaMb)} + ${map.arenas} thread arenas ${f(map.arenasMb)} + ` +
    `stacks ${f(map.stacksMb)} + other anonymous (V8 heap, large mallocs) ${f(map.otherAnonMb)}; ${map.threads} threads`
  );
}

export interface FullCollection {
  /** ms since the relay's isolate started (V8's own time stamp). */
  at: number;
  /** Objects (all spaces) after the collection, MB. */
  afterMb: number;
  /** V8's committed heap after it, MB. */
  committedMb: number;
}

/**
 * V8's Mark-Compacts as `--trace-gc` prints them on the relay's stdout ("… 12345 ms: Mark-Compact 150.2
 * (190.0) -> 70.1 (195.0) MB, …": objects and committed heap, before and after), of the main isolate:
 * each line names its isolate, and the password workers' threads have isolates of their own, with heaps
 * of a few MB; the main one is the one with the largest heap.
 */
export function watchFullCollections(child: ChildProcess): () => FullCollection[] {
  const byIsolate = new Map<string, FullCollection[]>();
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('latin1')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const match = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(([\d.]+)\) MB/.exec(line);
      if (!match) continue;
      const list = byIsolate.get(match[1]) ?? [];
      list.push({ at: Number(match[2]), afterMb: Number(match[3]), committedMb: Number(match[4]) });
      byIsolate.set(match[1], list);
    }
  });
  const largest = (list: FullCollection[]) => Math.max(...list.map((c) => c.committedMb));
  return () => [...byIsolate.values()].sort((a, b) => largest(b) - largest(a))[0] ?? [];
}
