import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What creating a file costs in `dir` on this machine: the median of `files` creates (`openSync(…, 'wx')`),
 * in ms. It is the filesystem's inode allocation, and it varied 50× between folders of one ext4 disk
 * (1.5 ms under /tmp, 0.03 ms under /root; docs/decisions.md#issue-27-spare-files). Every upload the
 * relay or a baseline receives pays it on its event loop: printed beside the load average so that runs
 * can be told apart.
 */
export function createCostMs(dir: string, files = 200): number {
  const probe = mkdtempSync(join(dir, 'create-cost-'));
  try {
    const times: number[] = [];
    for (let i = 0; i < files; i++) {
      const started = performance.now();
      closeSync(openSync(join(probe, `f${i}`), 'wx'));
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[files >> 1];
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
