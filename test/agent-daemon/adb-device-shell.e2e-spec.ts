import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, TestPeer, until, wsUrl } from '../agents/agent-kit';

const ROOT = join(__dirname, '..', '..');
const SESSION = 'android-emulator-5554';

/**
 * A stand-in `adb` with one emulator. Like adbd, `shell` and `exec-out` join their arguments with
 * spaces and hand the result to `sh -c` on the "device": here a sandbox directory whose PATH holds
 * stand-ins for the device's own commands, each of which records how it was called.
 */
function buildSandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-adb-'));
  for (const sub of ['bin', 'device', 'device-bin']) mkdirSync(join(dir, sub));
  const script = (path: string, body: string) => {
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
  };
  script(
    join(dir, 'bin', 'adb'),
    `sandbox=${JSON.stringify(dir)}
if [ "$1" = devices ]; then
  printf 'List of devices attached\\nemulator-5554          device product:sdk_gphone64 model:Pixel_7 device:emu64 transport_id:1\\n'
  exit 0
fi
[ "$1" = -s ] && shift 2
shift
printf '%s\\n' "$*" >> "$sandbox/adb-shell.log"
cd "$sandbox/device" && PATH="$sandbox/device-bin:/usr/bin:/bin" exec sh -c "$*"`,
  );
  const record = `printf '%s' "$(basename "$0")" >> ${JSON.stringify(join(dir, 'device-ran.log'))}
for a in "$@"; do printf ' [%s]' "$a" >> ${JSON.stringify(join(dir, 'device-ran.log'))}; done
echo >> ${JSON.stringify(join(dir, 'device-ran.log'))}`;
  script(join(dir, 'device-bin', 'input'), record);
  script(join(dir, 'device-bin', 'reboot'), record);
  script(join(dir, 'device-bin', 'getprop'), 'echo 14');
  script(join(dir, 'device-bin', 'wm'), 'echo "Physical size: 1080x2400"');
  return dir;
}

describe('reference agent, adb backend: nothing a client sends runs as device shell syntax', () => {
  let relay: TestRelay;
  let sandbox: string;
  let daemon: ChildProcess;
  let client: TestPeer;
  let log = '';

  beforeAll(async () => {
    sandbox = buildSandbox();
    relay = await startTestRelay();
    const members = new MemberFactory(relay);
    const token = await agentToken(members);
    // a Viewer's view PAT is all a device-session client needs
    const view = await members.pat(await members.member('Viewer'), 'view');
    daemon = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'src/agent-daemon/main.ts', '--relay', relay.url, '--name', 'adb-host'],
      {
        cwd: ROOT,
        env: { ...process.env, SVC_AGENT_TOKEN: token, PATH: join(sandbox, 'bin') + delimiter + process.env.PATH },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    daemon.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    await until(() => relay.app.get(AgentDirectory).locate(SESSION)?.connection, 30_000).catch(() => {
      throw new Error(`the agent never listed ${SESSION}; its log:\n${log}`);
    });
    client = new TestPeer(wsUrl(relay, `/api/v1/sessions/${SESSION}/connect`), { Authorization: `Bearer ${view}` });
    await client.opened;
  }, 60_000);

  afterAll(async () => {
    client?.close();
    daemon?.kill('SIGKILL');
    await relay?.close();
    rmSync(sandbox, { recursive: true, force: true });
  });

  let nextId = 0;
  const typeText = async (text: string) => {
    const id = `t${++nextId}`;
    client.send({ type: 'request', id, method: 'type_text', params: { text } });
    return (await client.next((m) => m.json?.id === id, 20_000)).json;
  };
  const deviceRan = () => (existsSync(join(sandbox, 'device-ran.log')) ? readFileSync(join(sandbox, 'device-ran.log'), 'utf8') : '');

  it.each([
    ['x;reboot', '[x;reboot]'],
    ['$(reboot)', '[$(reboot)]'],
    ['`reboot`', '[`reboot`]'],
    ["it's | reboot && \"q\" > out", `[it's%s|%sreboot%s&&%s"q"%s>%sout]`],
    ["'; reboot; '", `[';%sreboot;%s']`],
    ['\\\';reboot', `[\\';reboot]`],
  ])('types %j as one argument of `input text`', async (text, argument) => {
    const before = deviceRan();
    expect(await typeText(text)).toMatchObject({ ok: true });
    expect(deviceRan().slice(before.length)).toBe(`input [text] ${argument}\n`);
    expect(existsSync(join(sandbox, 'device', 'out'))).toBe(false);
  });

  it('refuses control characters before anything reaches the device', async () => {
    const before = readFileSync(join(sandbox, 'adb-shell.log'), 'utf8');
    for (const text of ['a\nreboot', 'a\rb', 'tab\there', 'nul\u0000', 'esc\u001b[2J', 'del\u007f']) {
      expect(await typeText(text)).toMatchObject({
        ok: false,
        error: { code: 'unsupported', message: 'type_text cannot type control characters' },
      });
    }
    expect(readFileSync(join(sandbox, 'adb-shell.log'), 'utf8')).toBe(before);
  });

  it('never ran anything but what the agent meant to run', () => {
    expect(deviceRan()).not.toMatch(/^reboot/m);
    // every command the device received starts with a quoted, known program
    const lines = readFileSync(join(sandbox, 'adb-shell.log'), 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith("'input' 'text' "))).toHaveLength(6);
    for (const line of lines) {
      expect(line).toMatch(/^'(input|getprop|wm)' /);
    }
  });
});
