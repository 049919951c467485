import { Socket } from 'node:net';
import type { Piece } from '../piece';
import { packageDir, packageFile, sha256Of } from '../packages';

/** The ws that @nestjs/platform-ws loads: the relay's agent sockets. */
const RELAY_WS = '@nestjs/platform-ws > ws';

/*
 * Not yet moved (issue 23 chunk 3 moves them here): registered so the fences cover them where they
 * are installed today.
 */

const slicedBinaryFrames: Piece<'app'> = {
  name: 'ws binary frames as slices of the socket reads',
  changes:
    "replaces the Receiver's getData of each agent socket (`_receiver` and its `_buffers`, `_fragments`, `_mask`… read and written), unmasking each read in place; screenshots gathered into pooled payloads",
  why: 'no 1 MiB allocation and copy per screenshot, which drove most of the relay GC (docs/decisions.md#item-26)',
  // Both copies' Receivers were read (sliced-binary-frames.spec covers both); the relay's sockets use the first.
  checkedAgainst: { [RELAY_WS]: '8.21.2', ws: '8.23.0', '@nestjs/platform-ws': '11.2.6' },
  phase: 'app',
  fingerprint: () => {
    const { wsReceiverFingerprint } = require('../../agents/protocol/sliced-binary-frames') as typeof import('../../agents/protocol/sliced-binary-frames');
    return wsReceiverFingerprint(require(packageFile(RELAY_WS, 'lib/receiver.js')) as { prototype: object });
  },
  // KNOWN_RECEIVERS in sliced-binary-frames.ts: ws 8.21.2, ws 8.23.0.
  expected: [
    '91b119e47a65922d29f361f604df742f451119c721e0a296f80af600058b865b',
    '0648dca5d841fa62c06134932b01227a98a84462a921118ac9937ac4f61a1af9',
  ],
  notYetMoved: {
    files: ['src/agents/protocol/sliced-binary-frames.ts', 'src/agents/protocol/sliced-binary-frames.spec.ts'],
    installedFrom: 'AgentGateway.handleConnection, per socket (sliceBinaryFrames)',
  },
};

const payloadReads: Piece<'app'> = {
  name: 'node socket reads into pooled payloads',
  changes: "sets net.Socket's private onread symbols (kBuffer, kBufferCb, kBufferGen) and calls the TCP handle's useUserBuffer on an accepted agent socket",
  why: 'no ArrayBuffer per socket read or per screenshot (docs/decisions.md#item-32; chunk 3 re-checks it by A/B)',
  checkedAgainst: { node: '20.20.2' },
  phase: 'app',
  // The private symbols a net.Socket carries, by name: onread's among them.
  fingerprint: () => sha256Of(Object.getOwnPropertySymbols(new Socket()).map((symbol) => String(symbol.description))),
  expected: ['46afaa53da94c89b59e81f19af64e02e796e9505e17caa8a3d64b08f834139ae'],
  notYetMoved: { files: ['src/agents/protocol/payload-reads.ts'], installedFrom: 'sliceBinaryFrames, per agent socket' },
};

const upgradeRouting: Piece<'app'> = {
  name: 'nest WsAdapter upgrade routing',
  changes: "UpgradeRoutingWsAdapter overrides WsAdapter's protected ensureHttpServerExists/addWsServerToRegistry and uses httpServersRegistry, so one authenticated 'upgrade' listener routes every gateway path",
  why: 'WebSocket upgrades authenticated by the same rule as HTTP, :param paths routed (docs/architecture.md; framework-fences WsAdapter block)',
  checkedAgainst: { '@nestjs/platform-ws': '11.2.6', '@nestjs/websockets': '11.2.6' },
  phase: 'app',
  fingerprint: () => {
    const { WsAdapter } = require(packageDir('@nestjs/platform-ws')) as { WsAdapter: { prototype: Record<string, unknown> } };
    const methods = ['create', 'ensureHttpServerExists', 'addWsServerToRegistry', 'bindMessageHandlers', 'close', 'dispose'];
    return sha256Of(methods.map((name) => String(WsAdapter.prototype[name])));
  },
  expected: ['326814535b1630648c13cd8ccc58b4bcf12adb08c71fef5e5f5265d81a5dc7fb'],
  notYetMoved: { files: ['src/common/net/upgrade-routing-ws-adapter.ts'], installedFrom: 'createRelayApp (app.useWebSocketAdapter)' },
};

export const pieces = [slicedBinaryFrames, payloadReads, upgradeRouting];
