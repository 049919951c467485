/**
 * Docs are a reference, not a diary (house style rule 30, issue 41 item 6): the docs that tend to grow are
 * capped, dated benchmark figures live in bench/results/ and performance.md's table cites the newest
 * of them, every engine-room piece has its row, and every link into either doc resolves.
 *
 * The caps: performance.md is the latest figures, how to run each benchmark and what each piece buys
 * (~250 lines); decisions.md is one short entry per decision in force (what, why, the evidence's link):
 * 361 lines when capped, 450 leaves room for about twenty more entries.
 * Past a cap, move dated figures to a result file and remove superseded entries (git keeps them); do
 * not raise the cap.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PIECES } from '../../src/platform';

const ROOT = resolve(__dirname, '../..');
const RESULTS = join(ROOT, 'bench', 'results');
const CAPS: Record<string, number> = { 'docs/performance.md': 260, 'docs/decisions.md': 450 };

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const lineCount = (file: string) => read(file).replace(/\n$/, '').split('\n').length;

/** A result file's start: the JSON run's `started`, or a moved run's front matter `started:`. */
function startedOf(file: string): number {
  const text = readFileSync(join(RESULTS, file), 'utf8');
  const started = file.endsWith('.json') ? (JSON.parse(text) as { started?: string }).started : /^started: (\S+)$/m.exec(text)?.[1];
  if (!started || Number.isNaN(Date.parse(started))) throw new Error(`bench/results/${file} says no start time`);
  return Date.parse(started);
}

/** The anchors a Markdown file offers: explicit `<a id>`s and GitHub's heading slugs. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

function* filesUnder(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* filesUnder(path);
    else if (/\.(ts|tsx|js|mjs|md)$/.test(name)) yield path;
  }
}

describe('docs are a reference', () => {
  it.each(Object.entries(CAPS))('%s stays within %i lines', (file, cap) => {
    expect(lineCount(file)).toBeLessThanOrEqual(cap);
  });

  it("performance.md's table cites result files that exist, the newest in bench/results among them", () => {
    const text = read('docs/performance.md');
    const table = /^## Where it stands$([\s\S]*?)^## /m.exec(text)?.[1] ?? '';
    const cited = [...table.matchAll(/\.\.\/bench\/results\/([\w.-]+)\)/g)].map((m) => m[1]);
    expect(cited.length).toBeGreaterThan(0);
    for (const file of cited) expect(existsSync(join(RESULTS, file))).toBe(true);

    const files = readdirSync(RESULTS).filter((name) => /^\d{4}-\d{2}-\d{2}-[0-9a-f]{7,40}(-[a-z0-9-]+)?\.(json|md)$/.test(name));
    expect(readdirSync(RESULTS).filter((name) => !files.includes(name))).toEqual([]); // every file named <date>-<commit>[-topic]
    const newest = files.reduce((a, b) => (startedOf(b) > startedOf(a) ? b : a));
    expect(cited).toContain(newest);
  });

  it('has a row for every engine-room piece, by its name', () => {
    const text = read('docs/performance.md');
    const missing = PIECES.map((piece) => piece.name).filter((name) => !text.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });

  it('every link to an anchor of decisions.md or performance.md, in code, tests, docs and result files, resolves', () => {
    const anchors = { decisions: anchorsOf(read('docs/decisions.md')), performance: anchorsOf(read('docs/performance.md')) };
    const broken: string[] = [];
    const roots = ['src', 'test', 'docs', 'bench', 'scripts', 'web/src', 'web/e2e'].map((dir) => join(ROOT, dir));
    for (const file of [join(ROOT, 'README.md'), ...roots.flatMap((dir) => [...filesUnder(dir)])]) {
      const text = readFileSync(file, 'utf8');
      for (const [, doc, anchor] of text.matchAll(/\b(decisions|performance)\.md#([a-z0-9-]+)/g)) {
        if (!anchors[doc as keyof typeof anchors].has(anchor)) broken.push(`${relative(ROOT, file)}: ${doc}.md#${anchor}`);
      }
      const own = /docs\/(decisions|performance)\.md$/.exec(file)?.[1] as keyof typeof anchors | undefined;
      if (own) for (const [, anchor] of text.matchAll(/\]\(#([^)]+)\)/g)) if (!anchors[own].has(anchor)) broken.push(`docs/${own}.md: #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it("performance.md's, decisions.md's and the result files' relative links reach files that exist", () => {
    const docs = ['docs/performance.md', 'docs/decisions.md', ...readdirSync(RESULTS).filter((f) => f.endsWith('.md')).map((f) => `bench/results/${f}`)];
    const broken: string[] = [];
    for (const doc of docs) {
      for (const [, target] of read(doc).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(ROOT, dirname(doc), target))) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
