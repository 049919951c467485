import { WsAdapter } from '@nestjs/platform-ws';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join, relative, sep } from 'node:path';
import { PIECES } from '../../src/platform';
import { pieces as v8Pieces } from '../../src/platform/v8';
import { installedVersion } from '../../src/platform/packages';

/**
 * The engine room (src/platform/, docs/architecture.md "Engine room"): every piece that changes how a
 * dependency, Node or V8 behaves is listed in PIECES with the exact versions it was read against and
 * a fingerprint of what it relies on. This spec walks that list, so an upgrade that moves an
 * internal fails here, loudly and by name, before it fails as a hung WebSocket or a lost
 * transaction. When one fails: read the new version's source, adapt the piece, then update its
 * `checkedAgainst`, `expected` and the pin in package.json together.
 */
const REPO = join(__dirname, '..', '..');
const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};
const declared = (name: string): string | undefined =>
  PACKAGE.dependencies[name] ?? PACKAGE.devDependencies[name] ?? PACKAGE.optionalDependencies[name];

/**
 * Internals read only inside src/platform/ (or a file a not-yet-moved piece names): those pieces
 * read, and the usual doors to Node's, Express's and EventEmitter's private state, none used today.
 */
const PRIVATE_NAMES = [
  '_bparser', 'kBuffer', "'etag fn'", "'trust proxy fn'", 'databaseConnection', '.master', 'escapeQueryWithParameters', '_receiver', 'setFlagsFromString',
  'kSocket', 'useUserBuffer', '_handle', 'getOwnPropertySymbols', 'process.binding', 'internalBinding', '_router', 'app.settings', '_events', '_parser',
];
/** A path past a package's index (`pkg/dist/...`): its internals by another door. */
const DEEP_IMPORT = /(?:from\s+|require\(|import\()'(?:@[^'/]+\/)?[^'./][^'/]*\/dist\//;

const versionEntries = PIECES.flatMap((piece) =>
  Object.entries(piece.checkedAgainst).filter(([name]) => name !== 'node').map(([chain, version]) => ({ piece: piece.name, chain, version })),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(REPO, path).split(sep).join('/')] : [];
  });
}

describe('the engine room (src/platform): every piece fenced', () => {
  it('lists each piece once, each with what it changes and why', () => {
    expect(new Set(PIECES.map((piece) => piece.name)).size).toBe(PIECES.length);
    for (const piece of PIECES) {
      expect(piece.changes.length).toBeGreaterThan(20);
      expect(piece.why).toMatch(/docs\//); // the measured gain, with where it is written up
      expect(Object.keys(piece.checkedAgainst).length).toBeGreaterThan(0);
    }
  });

  it("installs 'boot' pieces only from V8's own list, the one installBootPieces reads before any other module loads", () => {
    const boot = PIECES.filter((piece) => piece.phase === 'boot');
    expect(boot.length).toBeGreaterThan(0);
    for (const piece of boot) expect(v8Pieces).toContain(piece);
  });

  it.each(versionEntries)('$piece: $chain is pinned (never ^) and installed at exactly $version', ({ chain, version }) => {
    const names = chain.split('>').map((name) => name.trim());
    // The first name is the relay's own dependency; later ones are the copies it loads.
    expect(declared(names[0])).toBeDefined();
    for (const name of names) {
      const range = declared(name);
      if (range !== undefined) expect(`${name}@${range}`).toMatch(/@~?\d+\.\d+\.\d+$/);
    }
    expect(installedVersion(chain)).toBe(version);
  });

  it.each(PIECES.map((piece) => [piece.name, piece] as const))('%s: the fingerprint of what it relies on is a checked one', (_name, piece) => {
    expect(piece.expected).toContain(piece.fingerprint());
  });

  it('Node runs the major that engines.node pins and every piece was checked against', () => {
    const major = process.versions.node.split('.')[0];
    expect(PACKAGE.engines.node).toMatch(new RegExp(`^>=${major}\\.\\d+ <${Number(major) + 1}$`));
    for (const piece of PIECES) {
      const checked = (piece.checkedAgainst as Record<string, string | undefined>).node;
      if (checked) expect(`${piece.name}: node ${checked.split('.')[0]}`).toBe(`${piece.name}: node ${major}`);
    }
  });

  it('the files of pieces not yet moved exist, and each says where it is installed from today', () => {
    for (const piece of PIECES) {
      for (const file of piece.notYetMoved?.files ?? []) expect(existsSync(join(REPO, file)) ? file : `${piece.name}: missing ${file}`).toBe(file);
      if (piece.notYetMoved) expect(piece.notYetMoved.installedFrom.length).toBeGreaterThan(5);
    }
  });

  it('internals are read nowhere outside src/platform/ but in the files of pieces not yet moved', () => {
    const exempt = new Set(PIECES.flatMap((piece) => piece.notYetMoved?.files ?? []));
    const found = sourceFiles(join(REPO, 'src'))
      .filter((file) => !file.startsWith('src/platform/') && !exempt.has(file))
      .flatMap((file) => {
        const text = readFileSync(join(REPO, file), 'utf8');
        const names = PRIVATE_NAMES.filter((name) => text.includes(name));
        return [...names, ...(DEEP_IMPORT.test(text) ? ['a /dist/ import'] : [])].map((name) => `${file}: ${name}`);
      });
    expect(found).toEqual([]);
  });
});

describe('Nest WsAdapter as UpgradeRoutingWsAdapter uses it (public create() on a decoy server)', () => {
  let decoy: Server;
  beforeEach(() => (decoy = createServer()));
  afterEach(() => decoy.close());

  it('create(0, { path }) makes a noServer ws server and listens on nothing but the server it was given', async () => {
    const relay = createServer();
    const adapter = new WsAdapter(decoy);
    const server = adapter.create(0, { path: '/api/v1/things/:id/connect', perMessageDeflate: false }) as { options: { noServer?: boolean; perMessageDeflate?: boolean } };
    // No port, no server of its own: the relay's 'upgrade' listener hands it the sockets (handleUpgrade).
    expect(server.options).toMatchObject({ noServer: true, perMessageDeflate: false });
    expect(decoy.listening).toBe(false);
    expect(relay.listeners('upgrade')).toHaveLength(0);
    await adapter.dispose();
    expect(decoy.listening).toBe(false);
  });

  it('bindMessageHandlers(client, handlers, transform), close(server) and dispose() are overridable methods', () => {
    expect(WsAdapter.prototype.bindMessageHandlers.length).toBe(3);
    expect(typeof WsAdapter.prototype.close).toBe('function');
    expect(typeof WsAdapter.prototype.dispose).toBe('function');
  });
});
