/**
 * `npm run bench`'s result file (bench/support/run-report.ts): the suites' verdict lines, in the
 * words each suite prints them, read as met / missed / floor with their ratios and targets, and the
 * run written to bench/results/<date>-<commit>.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { formatSummary, parseVerdict, readSuite, resultFileName, summarise, writeRunReport, type RunReport } from '../../bench/support/run-report';

/** One line of each shape the suites print (bench/ingest, soak, screenshot, upload, startup, million, list). */
const LINES = {
  ingest: 'ratio 0.72 (target >= 0.5) OK; cpu ratio 0.64',
  soakReads: 'worst read p99: 105.1 ms (target < 100 ms) MISS',
  soakFloor: 'floor worst read p99: 111.0 ms (relay 155.4 ms, ratio 1.40)  FLOOR: even it is past the target (100 ms)',
  soakFloorMet: 'floor comment+image p99: 108.7 ms (relay 168.5 ms, ratio 1.55)',
  soakRatios: 'floor: 895 answers/s, 1.12 ms of CPU a request; relay ÷ floor: answers/s 0.62, CPU a request 1.62',
  screenshot: '8 clients over 8 agents: 0.27 of direct (plain HTTP server; target ≥ 0.70) MISS',
  upload: 'relay / nginx: 1.31 (target ≤ 1.05) MISS',
  startup: 'idle RSS after 5 s: 95 MB (target < 120 MB) OK',
  passwordPool: 'file cycle p99 B ÷ A: 0.018 (OK: target < 0.5, file I/O no longer waits for hashing)',
  listRow: 'plain                                 1674    10.2    15.9       0.370 |           2171    16.7       0.280 |  0.77       0.75  OK',
  listNon200: 'status                                  12    10.2    15.9       0.370 |           2171    16.7       0.280 |  0.01       0.75  NON-200',
  millionRow: 'plain                              1000000    1022    30.1    63.3    1.28    < 25  MISS',
  millionFloor: 'plain                               1612    38.2    0.72  63.3 ms, 1.28 ms  FLOOR: even it is past the target (25 ms) on sqlite',
  listFloorRate: "postgres search #pull request: answers/s ratio 0.85 of the floor's (845 / 996; target >= 0.8) OK",
  listFloorP99: "sqlite status: p99 ratio 3.77 of the floor's (86.7 ms / 23.0 ms; target <= 1.3) MISS (12 non-200)",
};

describe('bench run report', () => {
  it('reads each suite’s verdict line as met, missed or floor, with the ratio and target it states', () => {
    expect(parseVerdict(LINES.ingest)).toEqual({ status: 'met', ratio: 0.72, target: '>= 0.5', text: LINES.ingest });
    expect(parseVerdict(LINES.soakReads)).toMatchObject({ status: 'missed', target: '< 100 ms' });
    expect(parseVerdict(LINES.soakReads)?.ratio).toBeUndefined();
    expect(parseVerdict(LINES.soakFloor)).toMatchObject({ status: 'floor', ratio: 1.4, target: '100 ms' });
    expect(parseVerdict(LINES.screenshot)).toMatchObject({ status: 'missed', ratio: 0.27, target: '≥ 0.70' });
    expect(parseVerdict(LINES.upload)).toMatchObject({ status: 'missed', ratio: 1.31, target: '≤ 1.05' });
    expect(parseVerdict(LINES.startup)).toMatchObject({ status: 'met', target: '< 120 MB' });
    expect(parseVerdict(LINES.passwordPool)).toMatchObject({ status: 'met', ratio: 0.018, target: '< 0.5' });
    expect(parseVerdict(LINES.listRow)).toMatchObject({ status: 'met', ratio: 0.77 });
    expect(parseVerdict(LINES.listNon200)).toMatchObject({ status: 'missed', ratio: 0.01 });
    expect(parseVerdict(LINES.millionRow)).toMatchObject({ status: 'missed', target: '< 25' });
    expect(parseVerdict(LINES.millionFloor)).toMatchObject({ status: 'floor', target: '25 ms' });
    expect(parseVerdict(LINES.listFloorRate)).toMatchObject({ status: 'met', ratio: 0.85, target: '>= 0.8' });
    expect(parseVerdict(LINES.listFloorP99)).toMatchObject({ status: 'missed', ratio: 3.77, target: '<= 1.3' });
    expect(parseVerdict('relay:    120 builds/s, 3.47 ms CPU per upload')).toBeNull();
  });

  it('keeps a suite’s ratio lines beside its verdicts, and counts them in the summary', () => {
    const soak = readSuite('soak', 0, [LINES.soakReads, LINES.soakRatios, LINES.soakFloorMet, LINES.soakFloor, 'relay: 1,000 answers/s']);
    expect(soak.verdicts.map((v) => v.status)).toEqual(['missed', 'floor']);
    expect(soak.ratios).toEqual([LINES.soakRatios, LINES.soakFloorMet]);
    const list = readSuite('list', 1, [LINES.listRow]);
    expect(summarise([soak, list])).toEqual({ met: 1, missed: 1, floor: 1, suitesNotFinished: ['list'] });

    const printed = formatSummary([soak, list]);
    expect(printed).toContain(`  MISSED      -  ${LINES.soakReads}`);
    expect(printed).toContain(`  FLOOR   1.400  ${LINES.soakFloor}`);
    expect(printed).toContain(`  met     0.770  ${LINES.listRow.trim()}`);
    expect(printed).toContain('list  (did not finish: exit 1)');
  });

  it('writes the run to <date>-<commit>.json, a second run of the same day and commit beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-results-'));
    try {
      const started = '2026-12-02T05:10:00.000Z';
      const suites = [readSuite('ingest', 0, [LINES.ingest])];
      const report: RunReport = {
        started,
        finished: '2026-12-02T05:12:00.000Z',
        commit: 'abc1234',
        dirty: false,
        node: process.version,
        loadAverage: { start: [1, 1, 1], end: [2, 2, 2] },
        suites,
        summary: summarise(suites),
      };
      const first = writeRunReport(dir, report);
      expect(basename(first)).toBe('2026-12-02-abc1234.json');
      expect(JSON.parse(readFileSync(first, 'utf8'))).toEqual(report);
      expect(basename(writeRunReport(dir, report))).toBe('2026-12-02-abc1234-2.json');
      writeFileSync(join(dir, '2026-12-02-abc1234-3.json'), '{}');
      expect(resultFileName(dir, new Date(started), 'abc1234')).toBe('2026-12-02-abc1234-4.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
