import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { AppiumBridge } from '../../src/agent-daemon/appium/appium-bridge';
import { RunningAppium, startFakeAppium } from '../../src/agent-daemon/appium/appium-server';
import { FakeAppModels } from '../../src/agent-daemon/appium/fake-app-model';
import { FakeBackend } from '../../src/agent-daemon/backends/fake-backend';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { until } from '../agents/agent-kit';
import type { TestRelay } from '../support/test-relay';

export { RunningAppium, startFakeAppium };

/** `svc agent --fake --appium` in this process: the fake devices, their hub sessions on a real Appium with its fake driver. */
export async function startAppiumAgent(relay: TestRelay, token: string, name: string, appium: RunningAppium | null, backend = new FakeBackend(name, { enabled: false })): Promise<AgentDaemon> {
  const daemon = new AgentDaemon({
    relayUrl: relay.url,
    token,
    name,
    backend,
    version: 'test',
    backoffBaseMs: 50,
    backoffCapMs: 500,
    log: () => undefined,
    appium: appium ? new AppiumBridge(appium.url, new FakeAppModels()) : undefined,
  });
  daemon.start();
  const first = (await backend.listDevices())[0].sessionId;
  await until(() => relay.app.get(AgentDirectory).locate(first)?.connection && relay.app.get(AgentDirectory).lastHello(name));
  return daemon;
}

export interface WdioRun {
  result: Promise<Record<string, any>>;
  /** Lines it printed before its result (the `hold` scenario prints the session it holds). */
  firstLine: Promise<Record<string, any>>;
  /** Lets a `hold` scenario go on (it deletes its session and ends). */
  release(): void;
  kill(): void;
}

/** Runs the WebdriverIO client (wdio-client.mjs) in a child process against the hub. */
export function runWdio(scenario: string, env: { url: string; token: string; auth?: 'basic' | 'bearer'; caps?: object; settleMs?: number }): WdioRun {
  const child = spawn(process.execPath, [join(__dirname, 'wdio-client.mjs'), scenario], {
    env: { ...process.env, HUB_URL: env.url, HUB_TOKEN: env.token, HUB_AUTH: env.auth ?? 'basic', HUB_CAPS: JSON.stringify(env.caps ?? {}), HUB_SETTLE_MS: String(env.settleMs ?? 0) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const lines: ((line: Record<string, any>) => void)[] = [];
  let firstResolve: (line: Record<string, any>) => void = () => undefined;
  const firstLine = new Promise<Record<string, any>>((resolve) => (firstResolve = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const complete = out.split('\n').filter((l) => l.trim());
    if (complete.length >= 1) firstResolve(JSON.parse(complete[0]));
    void lines;
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const result = new Promise<Record<string, any>>((resolve, reject) => {
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop();
      if (!last) return reject(new Error(`wdio client printed nothing (exit ${code}): ${err.slice(-2000)}`));
      resolve(JSON.parse(last));
    });
  });
  return {
    result,
    firstLine,
    release: () => child.stdin.end('go\n'),
    kill: () => child.kill('SIGKILL'),
  };
}
