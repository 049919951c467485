import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_TEST_TIMEOUT_MS, emptyDir, RunningCli, spawnCli } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/**
 * Packages a relay alone never needs load on first use, not at start-up (docs/decisions.md#s1):
 * every module is compiled at each start (restart CPU, idle RSS). A relay started as `svc relay`,
 * asked for its health, stopped; a preload lists the modules it loaded as it exits.
 */
const LOADED_ON_FIRST_USE = [
  'openid-client',
  'ldapts',
  '@slack/web-api',
  'mediabunny',
  '@xmldom/xmldom',
  'nodemailer',
  'ioredis',
  '@aws-sdk/client-s3',
  '@tus/server',
  '@modelcontextprotocol/sdk',
  // Redis messages' schemas (src/cluster/cluster-schema.ts), and the metrics nobody scrapes without SVC_METRICS.
  'zod',
  'prom-client',
  '@opentelemetry/api',
];

describe('start-up modules', () => {
  it('a relay with no SSO, Slack, mail, Redis, S3 or metrics loads none of their packages before they are used', async () => {
    const dir = emptyDir('svc-start-up-modules-');
    const listing = join(dir, 'modules.json');
    const preload = join(dir, 'list-modules.js');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listing)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const relay = new RunningCli(
      spawnCli(['relay'], { env: { NODE_OPTIONS: `--require ${preload}`, SVC_DATA_DIR: join(dir, 'data'), SVC_PORT: '0', SVC_HOST: '127.0.0.1' } }),
    );
    try {
      const [, url] = await relay.waitFor(/^svc relay listening on (http:\/\/127\.0\.0\.1:\d+)/);
      expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
    } finally {
      await relay.stop();
    }
    const packages = new Set(
      (JSON.parse(readFileSync(listing, 'utf8')) as string[]).map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]).filter(Boolean),
    );
    expect(packages.has('@nestjs/core')).toBe(true); // the listing saw the relay's own start
    expect(LOADED_ON_FIRST_USE.filter((name) => packages.has(name))).toEqual([]);
  });
});
