import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Socket } from 'node:net';
import type { Piece } from '../piece';
import { packageDir, sha256Of } from '../packages';
import { PayloadPool } from './payload-pool';
import { installSlicedBinaryFrames, setPayloadPool, wsReceiverFingerprint } from './sliced-binary-frames';

/** The ws that @nestjs/platform-ws loads: the relay's agent sockets. */
const RELAY_WS = '@nestjs/platform-ws > ws';

const slicedBinaryFrames: Piece<'app'> = {
  name: 'ws binary frames as slices of the socket reads',
  changes:
    "replaces getData on the Receiver prototype of the relay's ws copy, once; for sockets whose binaryType is 'fragments' (the agent gateway's) it reads and writes `_buffers`, `_fragments`, `_mask`… per socket, unmasking each read in place; screenshots gathered into AgentsModule's PayloadPool",
  why: 'no 1 MiB allocation and copy per screenshot, which drove most of the relay GC (docs/decisions.md#item-26)',
  // Both copies' Receivers were read (sliced-binary-frames.spec covers both); the relay's sockets use the first.
  checkedAgainst: { [RELAY_WS]: '8.21.2', ws: '8.23.0', '@nestjs/platform-ws': '11.2.6' },
  phase: 'app',
  fingerprint: () => wsReceiverFingerprint((require(packageDir(RELAY_WS)) as { Receiver: { prototype: object } }).Receiver),
  // ws 8.21.2 (the relay's copy), ws 8.23.0 (top level).
  expected: [
    '91b119e47a65922d29f361f604df742f451119c721e0a296f80af600058b865b',
    '0648dca5d841fa62c06134932b01227a98a84462a921118ac9937ac4f61a1af9',
  ],
  install: (app) => {
    if (!installSlicedBinaryFrames(packageDir(RELAY_WS), slicedBinaryFrames.expected)) {
      new Logger('Platform').warn('ws internals are not the expected ones: agent binary frames are copied as ws does by default');
    }
    setPayloadPool(payloadPoolOf(app));
  },
};

/** AgentsModule's pool (absent from an app without agents). One relay per process: a second one's pool takes over. */
function payloadPoolOf(app: NestExpressApplication): PayloadPool | null {
  try {
    return app.get(PayloadPool, { strict: false });
  } catch {
    return null;
  }
}

const payloadReads: Piece<'app'> = {
  name: 'node socket reads into pooled payloads',
  changes: "sets net.Socket's private onread symbols (kBuffer, kBufferCb, kBufferGen) and calls the TCP handle's useUserBuffer on an accepted agent socket",
  why: 'no ArrayBuffer per socket read or per screenshot: relay CPU per screenshot against the pool alone 2.11 -> 1.67 ms, lower in 6 of 6 rounds (docs/decisions.md#item-32, docs/decisions.md#issue-23-ws)',
  checkedAgainst: { node: '20.20.2' },
  phase: 'app',
  // Called by the sliced frames' getData, once per socket, when its first pooled payload is still to come.
  // The private symbols a net.Socket carries, by name: onread's among them.
  fingerprint: () => sha256Of(Object.getOwnPropertySymbols(new Socket()).map((symbol) => String(symbol.description))),
  expected: ['46afaa53da94c89b59e81f19af64e02e796e9505e17caa8a3d64b08f834139ae'],
};

/*
 * UpgradeRoutingWsAdapter (src/common/net) is no piece: since issue 23 it uses Nest's public create()
 * on a decoy server and Node's 'upgrade' event (framework-fences' WsAdapter block checks create()).
 */
export const pieces = [slicedBinaryFrames, payloadReads];
