import { execFile, ExecFileOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { CLI_TEST_TIMEOUT_MS, CliResult, emptyDir, REPO_ROOT } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const WORKSPACE = join(REPO_ROOT, 'packages', 'cli');
const APK = join(REPO_ROOT, 'test', 'fixtures', 'builds', 'literal-label.apk');

/**
 * The CLI as a CI runner gets it: `npm pack` of the packages/cli workspace, installed with
 * `npm install -g` into an empty prefix with no registry (offline, empty cache, a registry address
 * nobody listens on: any fetch fails the test), then its `svc` run as a plain process whose PATH
 * holds node and nothing else, against a real relay.
 */
describe('the packed CLI (packages/cli), installed on a clean machine', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let svcBin: string;
  let installedBundle: string;
  let tarballFiles: string[];
  let nodeOnlyPath: string;

  beforeAll(async () => {
    const work = emptyDir('svc-packed-cli-');
    const packed = await npm(['pack', '--json', '--pack-destination', work], WORKSPACE, work);
    const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarballFiles = files.map((f) => f.path);
    const prefix = join(work, 'prefix');
    mkdirSync(prefix);
    await npm(['install', '-g', '--prefix', prefix, '--offline', join(work, filename)], work, work);
    svcBin = join(prefix, 'bin', 'svc');
    installedBundle = join(prefix, 'lib', 'node_modules', '@svc-relay', 'cli', 'dist', 'svc.js');
    nodeOnlyPath = join(work, 'node-only');
    mkdirSync(nodeOnlyPath);
    symlinkSync(process.execPath, join(nodeOnlyPath, 'node'));
    relay = await startTestRelay();
    members = new MemberFactory(relay);
  }, 240_000);
  afterAll(() => relay?.close());

  /** `svc` from the installed prefix, with an environment a fresh CI runner would have. */
  function svc(args: string[]): Promise<CliResult> {
    const home = emptyDir('svc-packed-home-');
    return run(svcBin, args, { cwd: home, env: { PATH: nodeOnlyPath, HOME: home } });
  }

  it('the tarball is the bundled client and nothing else: no dependency to fetch, nothing of the relay', () => {
    expect(tarballFiles.sort()).toEqual(['bin/svc.js', 'dist/svc.js', 'package.json']);
    const manifest = JSON.parse(readFileSync(join(WORKSPACE, 'package.json'), 'utf8'));
    expect({ dependencies: manifest.dependencies, bin: manifest.bin, engines: manifest.engines }).toEqual({
      dependencies: undefined,
      bin: { svc: 'bin/svc.js' },
      engines: { node: '>=20' },
    });
    expect(readFileSync(join(WORKSPACE, 'bin', 'svc.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    const requires = [...readFileSync(installedBundle, 'utf8').matchAll(/require\((["'])([^"']+)\1\)/g)].map((m) => m[2]);
    expect(requires.filter((name) => !name.startsWith('node:'))).toEqual([]);
    // Released with the relay: the same version, so a runner's `svc --version` says which relay it matches.
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
  });

  it('svc upload <apk> --url --token: exit 0, prints the build page URL, and the relay lists the build', async () => {
    const token = await members.pat(await members.member('Developer'));
    const result = await svc(['upload', APK, '--url', relay.url, '--token', token, '--label', 'ci/packed']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const page = /^Build page: (\S+)$/m.exec(result.stdout);
    expect(page).not.toBeNull();
    const id = Number(/\/builds\/(\d+)$/.exec(page![1])?.[1]);
    expect(page![1]).toBe(`${relay.url}/builds/${id}`);

    const listed = await members.withPat(token, 'get', '/api/v1/builds?limit=100').expect(200);
    expect(listed.body.items.find((b: { id: number }) => b.id === id)).toMatchObject({
      bundle_id: 'com.example.literal',
      version_name: '1.2.3',
      version_label: 'ci/packed',
    });
  });

  it('svc apps list with a token lacking view: non-zero exit, names the scope it needs', async () => {
    const token = await members.pat(await members.member('Developer'), 'builds:write');
    const refused = await members.withPat(token, 'get', '/api/v1/apps');
    expect(refused.status).toBe(403);
    const result = await svc(['apps', 'list', '--url', relay.url, '--token', token]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`svc: ${refused.body.error}`);
    expect(result.stderr).toMatch(/`view` scope/);
  });

  it('the standalone svc has only the client commands', async () => {
    const help = await svc(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}upload /m);
    expect(help.stdout).toMatch(/^ {2}apps /m);
    expect(help.stdout).not.toMatch(/^ {2}(relay|admin|backup|migrate)\b/m);
    expect((await svc(['--version'])).stdout.trim()).toBe(JSON.parse(readFileSync(join(WORKSPACE, 'package.json'), 'utf8')).version);
  });
});

/**
 * npm with nothing from the outer npm run (npm_config_* would point it at the repo) and no way to
 * reach a registry: an empty cache, --offline, and a registry address on a closed loopback port.
 */
async function npm(args: string[], cwd: string, work: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  const userconfig = join(work, 'npmrc');
  if (!existsSync(userconfig)) writeFileSync(userconfig, '');
  Object.assign(env, {
    npm_config_userconfig: userconfig,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  });
  const result = await run('npm', args, { cwd, env });
  if (result.code !== 0) throw new Error(`npm ${args.join(' ')} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

async function run(file: string, args: string[], options: ExecFileOptions): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { ...options, encoding: 'utf8', timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: `${e.stderr ?? ''}${typeof e.code === 'string' ? e.code : ''}` };
  }
}
