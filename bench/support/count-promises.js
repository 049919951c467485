// Preloaded into a relay by bench/promises.ts (node -r): counts the promises the process creates, and
// with COUNT_STACKS samples where they are made. SIGUSR2 writes the count to COUNT_FILE (and the
// sampled stacks since the last signal to COUNT_FILE.stacks), then starts a new sample window.
const { createHook } = require('node:async_hooks');
const { writeFileSync } = require('node:fs');

let created = 0;
let sampling = false;
const stacks = new Map();
const OWN = /node:internal\/async_hooks|count-promises/;

createHook({
  init(_id, type) {
    if (type !== 'PROMISE') return;
    created++;
    if (!sampling) return;
    sampling = false; // the Error below makes promises of its own in some frames: not counted twice
    const frames = new Error().stack.split('\n').slice(2).filter((line) => !OWN.test(line)).slice(0, 4);
    const key = frames.map((line) => line.trim().replace(/^at /, '').replace(/\(.*?\/(dist|node_modules)\//, '($1/')).join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + 1);
    sampling = true;
  },
}).enable();

process.on('SIGUSR2', () => {
  writeFileSync(process.env.COUNT_FILE, String(created));
  if (!process.env.COUNT_STACKS) return;
  const top = [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 60);
  writeFileSync(`${process.env.COUNT_FILE}.stacks`, top.map(([stack, n]) => `${n}\t${stack}`).join('\n'));
  stacks.clear();
  sampling = !sampling;
});
