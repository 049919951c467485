import { WsAdapter } from '@nestjs/platform-ws';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { DataSource, QueryRunner } from 'typeorm';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { itSqliteOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * Pieces that reach past public APIs: UpgradeRoutingWsAdapter (src/common/net/) overrides protected
 * hooks of Nest's WsAdapter, the SQLite connection gate (src/database/transaction-runner.ts)
 * wraps TypeORM's one shared query runner, the agent sockets' frame slicing patches ws's Receiver
 * (src/agents/protocol/, its own spec checks the fingerprint on both copies of ws), and uploads
 * swap busboy's boundary search (src/common/multipart/native-boundary-search.ts, likewise). Their
 * packages' minor versions are pinned in
 * package.json; these tests name each internal relied on, so an upgrade that moves one fails here,
 * loudly and by name, before it fails as a hung WebSocket or a lost transaction. When one fails:
 * read the new version's source, adapt the piece, then widen the pin.
 */
const REPO = join(__dirname, '..', '..');
const FENCED = ['@nestjs/platform-ws', '@nestjs/websockets', 'typeorm', 'ws', 'busboy'];

describe('framework internals the relay relies on', () => {
  it.each(FENCED)('%s is pinned to one minor version, and the installed one satisfies it', (name) => {
    const range: string = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).dependencies[name];
    const installed: string = JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')).version;
    expect(range).toMatch(/^(~|)\d+\.\d+\.\d+$/); // `~x.y.z` or exact: never `^`, which lets a new minor in
    const [major, minor, patch] = range.replace('~', '').split('.').map(Number);
    const [iMajor, iMinor, iPatch] = installed.split('.').map(Number);
    expect([iMajor, iMinor]).toEqual([major, minor]);
    expect(range.startsWith('~') ? iPatch >= patch : iPatch === patch).toBe(true);
  });

  describe('Nest WsAdapter (UpgradeRoutingWsAdapter overrides these)', () => {
    let http: Server;
    beforeEach(() => (http = createServer()));
    afterEach(() => http.close());

    it('create() on the HTTP server (port 0) goes through ensureHttpServerExists(0, server) then addWsServerToRegistry(ws, 0, path)', async () => {
      const calls: string[] = [];
      class Probe extends WsAdapter {
        protected override ensureHttpServerExists(port: number, httpServer?: Server) {
          calls.push(`ensure:${port}:${httpServer === http}`);
          // Pre-registering the server keeps the base class from adding its own 'upgrade' listener.
          this.httpServersRegistry.set(port, httpServer!);
          return httpServer;
        }
        protected override addWsServerToRegistry<T extends Record<'path', string>>(wsServer: T, port: number, path: string) {
          super.addWsServerToRegistry(wsServer, port, path);
          calls.push(`add:${port}:${path}:${wsServer.path}`); // the base class sets the ws server's path

        }
      }
      const adapter = new Probe(http);
      adapter.create(0, { path: '/api/v1/things/:id/connect' });
      expect(calls).toEqual(['ensure:0:true', 'add:0:/api/v1/things/:id/connect:/api/v1/things/:id/connect']);
      expect(http.listeners('upgrade')).toHaveLength(0);
      await adapter.dispose();
    });

    it('bindMessageHandlers(client, handlers, transform) and dispose() are still overridable methods', () => {
      expect(typeof WsAdapter.prototype.bindMessageHandlers).toBe('function');
      expect(WsAdapter.prototype.bindMessageHandlers.length).toBe(3);
      expect(typeof WsAdapter.prototype.dispose).toBe('function');
      expect((new WsAdapter(http) as unknown as { httpServersRegistry: unknown }).httpServersRegistry).toBeInstanceOf(Map);
    });
  });

  describe('TypeORM on SQLite (the connection gate wraps this)', () => {
    const ctx = useTestRelay();

    itSqliteOnly('the gate is for SQLite\'s one shared connection')(
      'the driver hands out ONE query runner, whose query/start/commit/rollback the gate has wrapped',
      async () => {
        const dataSource = ctx.relay.app.get(DataSource);
        const first = dataSource.driver.createQueryRunner('master');
        expect(dataSource.driver.createQueryRunner('master')).toBe(first);
        expect(dataSource.createQueryRunner()).toBe(first);
        const proto = Object.getPrototypeOf(first) as QueryRunner;
        for (const method of ['query', 'startTransaction', 'commitTransaction', 'rollbackTransaction'] as const) {
          expect(typeof proto[method]).toBe('function');
          expect(first[method]).not.toBe(proto[method]); // the gate's wrapper, installed on the instance
        }
      },
    );

    itSqliteOnly('the gate is for SQLite\'s one shared connection')(
      'a transaction runs on that runner: isTransactionActive while inside, its manager bound to it',
      async () => {
        const dataSource = ctx.relay.app.get(DataSource);
        const shared = dataSource.driver.createQueryRunner('master');
        const seen = await ctx.relay.app.get(TransactionRunner).run(async (manager) => ({
          sameRunner: manager.queryRunner === shared,
          active: shared.isTransactionActive,
        }));
        expect(seen).toEqual({ sameRunner: true, active: true });
        expect(shared.isTransactionActive).toBe(false);
      },
    );
  });
});
