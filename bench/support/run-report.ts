/**
 * The result file of `npm run bench` (bench/run-all.ts): every suite's verdict lines, read as met,
 * missed or floor with the ratio the line states, written to bench/results/<date>-<commit>.json so
 * that docs/performance.md cites a committed run instead of keeping dated figures itself.
 *
 * The suites print verdicts for people (`... (target >= 0.5) OK`); this reads them as they are,
 * so a suite needs no second output format. A line it cannot read a ratio from keeps its text.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type VerdictStatus = 'met' | 'missed' | 'floor';

export interface Verdict {
  status: VerdictStatus;
  /** The ratio the line states (to a baseline, the floor, another build), when it states one. */
  ratio?: number;
  /** The target as the line words it (`>= 0.5`, `< 100 ms`). */
  target?: string;
  text: string;
}

export interface SuiteResult {
  name: string;
  /** The suite's exit code: anything but 0 means it did not finish measuring. */
  exitCode: number | null;
  verdicts: Verdict[];
  /** Lines that state a ratio without a verdict (the soak's relay ÷ floor, an ingest cpu ratio...). */
  ratios: string[];
}

export interface RunReport {
  started: string;
  finished: string;
  commit: string;
  /** Uncommitted changes in the tree when the run started: its figures are not the commit's alone. */
  dirty: boolean;
  node: string;
  /**
   * The machine: the same commit's ratios to the floor moved with it (the PostgreSQL soak's CPU 1.38x
   * on one 2-core machine, 1.64-1.72x on another), so a run says which it was.
   */
  machine?: { cpu: string; cores: number; memoryMb: number };
  loadAverage: { start: number[]; end: number[] };
  suites: SuiteResult[];
  summary: { met: number; missed: number; floor: number; suitesNotFinished: string[] };
}

/** A verdict line: the suites print OK or MISS after each compared figure, FLOOR where even the floor misses. */
export const VERDICT_LINE = /\b(OK|MISS|NON-200|FLOOR)\b/;
const RATIO_LINE = /÷|\bratio\b/;

const RATIO_PATTERNS: RegExp[] = [
  /\bratio (\d+(?:\.\d+)?)/, // ingest: "ratio 0.72 (target >= 0.5) OK"; soak floor: "(relay 105.1 ms, ratio 1.51)"
  /(\d+(?:\.\d+)?) of direct/, // screenshot: "0.27 of direct"
  /relay \/ \w+:\s+(\d+(?:\.\d+)?)/, // upload: "relay / nginx: 1.31"
  /÷ A: (\d+(?:\.\d+)?)/, // password-pool: "file cycle p99 B ÷ A: 0.018"
  /\|\s+(\d+(?:\.\d+)?)\s+\d+(?:\.\d+)?\s+(?:OK|MISS|NON-200)\s*$/, // list table row: "| ratio  cpu ratio  verdict"
];

export function parseVerdict(line: string): Verdict | null {
  const text = line.trim();
  const word = VERDICT_LINE.exec(text)?.[1];
  if (!word) return null;
  const status: VerdictStatus = /\bFLOOR\b/.test(text) ? 'floor' : word === 'OK' ? 'met' : 'missed';
  const verdict: Verdict = { status, text };
  for (const pattern of RATIO_PATTERNS) {
    const found = pattern.exec(text);
    if (found) {
      verdict.ratio = Number(found[1]);
      break;
    }
  }
  const target =
    /target (?:\()?([<>≤≥]=?[^);,]*)/.exec(text)?.[1] ?? // "(target >= 0.5)", "(...; target < 150 MB)"
    /past the target \(([^)]*)\)/.exec(text)?.[1] ?? // a floor line
    /\s(< \d+)\s+(?:OK|MISS)/.exec(text)?.[1]; // a million-builds row's target column
  if (target) verdict.target = target.trim();
  return verdict;
}

/** Reads one suite's output lines into its verdicts and its ratio lines. */
export function readSuite(name: string, exitCode: number | null, lines: string[]): SuiteResult {
  const verdicts: Verdict[] = [];
  const ratios: string[] = [];
  for (const line of lines) {
    const verdict = parseVerdict(line);
    if (verdict) verdicts.push(verdict);
    else if (RATIO_LINE.test(line)) ratios.push(line.trim());
  }
  return { name, exitCode, verdicts, ratios };
}

export function summarise(suites: SuiteResult[]): RunReport['summary'] {
  const count = (status: VerdictStatus) => suites.reduce((n, suite) => n + suite.verdicts.filter((v) => v.status === status).length, 0);
  return {
    met: count('met'),
    missed: count('missed'),
    floor: count('floor'),
    suitesNotFinished: suites.filter((suite) => suite.exitCode !== 0).map((suite) => suite.name),
  };
}

/** One line per target, for the run's closing summary: status, ratio (or -), the suite's own words. */
export function formatSummary(suites: SuiteResult[]): string[] {
  const out: string[] = [];
  for (const suite of suites) {
    out.push(`${suite.name}${suite.exitCode === 0 ? '' : `  (did not finish: exit ${suite.exitCode})`}`);
    for (const v of suite.verdicts) {
      const status = v.status === 'met' ? 'met   ' : v.status === 'missed' ? 'MISSED' : 'FLOOR ';
      out.push(`  ${status} ${v.ratio === undefined ? '     -' : v.ratio.toFixed(3).padStart(6)}  ${v.text}`);
    }
    for (const line of suite.ratios) out.push(`  ratio         ${line}`);
  }
  return out;
}

/** bench/results/<YYYY-MM-DD>-<commit>.json by the run's start (UTC); a second run of the same day and commit gets -2, -3... */
export function resultFileName(dir: string, started: Date, commit: string): string {
  const base = `${started.toISOString().slice(0, 10)}-${commit}`;
  let name = `${base}.json`;
  for (let n = 2; existsSync(join(dir, name)); n++) name = `${base}-${n}.json`;
  return name;
}

export function writeRunReport(dir: string, report: RunReport): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, resultFileName(dir, new Date(report.started), report.commit));
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
