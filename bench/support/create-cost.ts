import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './relay';

/**
 * What creating a file costs in `dir` on this machine, as a line for a benchmark's header: the median
 * of `files` creates (`openSync(…, 'wx')`). It is the filesystem's inode allocation, and it varied 50×
 * between folders of one ext4 disk (1.5 ms under /tmp, 0.03 ms under /root;
 * docs/decisions.md#issue-27-spare-files). Every upload the relay or a baseline receives pays it on its
 * event loop, so runs whose folders differ here can be told apart.
 */
export function createCostLine(dir: string, files = 200): string {
  const probe = mkdtempSync(join(dir, 'create-cost-'));
  try {
    const times: number[] = [];
    for (let i = 0; i < files; i++) {
      const started = performance.now();
      closeSync(openSync(join(probe, `f${i}`), 'wx'));
      times.push(performance.now() - started);
    }
    return `data folder ${dir}: a file create there takes ${median(times).toFixed(3)} ms (median of ${files})`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
