import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * No Docker engine (and no hadolint package) on this machine: the Dockerfile is checked for the
 * structure the deployment promises, and scripts/verify-docker-steps.sh runs its steps outside
 * Docker (see docs/deploy.md for what was and wasn't verified).
 */
const root = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\s*\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages = instructions.filter((l) => l.startsWith('FROM '));
const runtime = instructions.slice(instructions.lastIndexOf(stages[stages.length - 1]));

describe('Dockerfile', () => {
  it('is multi-stage: a build stage, then a slim runtime stage that copies from it', () => {
    expect(stages).toEqual([expect.stringMatching(/^FROM node:\S+-slim AS build$/), expect.stringMatching(/^FROM node:\S+-slim AS runtime$/)]);
    expect(runtime.filter((l) => l.startsWith('COPY --from=build'))).toHaveLength(4);
    expect(runtime).toContain('COPY --from=build /app/web/dist ./web/dist'); // the dashboard, built by Vite
    expect(runtime.some((l) => /npm (ci|install)/.test(l))).toBe(false); // no dev toolchain in the runtime
    expect(instructions).toContain('RUN npm run build && npm run build:web && npm prune --omit=dev --no-audit --no-fund');
  });

  it('runs as a non-root user with SVC_DATA_DIR=/data on a /data volume', () => {
    const user = runtime.find((l) => l.startsWith('USER '));
    expect(user).toBe('USER node');
    expect(runtime.indexOf(user!)).toBeGreaterThan(runtime.findIndex((l) => l.includes('chown node:node /data')));
    expect(runtime.join('\n')).toMatch(/ENV .*SVC_DATA_DIR=\/data/);
    expect(runtime).toContain('VOLUME ["/data"]');
  });

  it('has a HEALTHCHECK on /api/v1/health and `svc relay` as its entry point', () => {
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/CMD \["node", "\/app\/bin\/healthcheck\.js"\]$/);
    expect(runtime).toContain('ENTRYPOINT ["node", "/app/bin/svc.js"]');
    expect(runtime[runtime.length - 1]).toBe('CMD ["relay"]');
    expect(readFileSync(join(root, 'bin', 'healthcheck.js'), 'utf8')).toContain('/api/v1/health');
  });

  it('every file the Dockerfile copies exists and is not excluded by .dockerignore', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const copied = instructions
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'web', 'bin']));
    for (const path of copied) {
      expect(() => readFileSync(join(root, path))).not.toThrow(/ENOENT/);
      expect(ignored).not.toContain(path);
    }
  });
});
