import { installBootPieces } from '../platform/boot';

/**
 * The first thing a process that will be the relay does (npm start, `svc relay`), before any other
 * module loads: the engine room's 'boot' pieces, V8 settings it must have before its heap first grows
 * (src/platform/boot.ts). npm start runs it from its first import (boot-first.ts), `svc relay` from
 * bin/svc.js before the CLI's modules load.
 */
export function bootRelayProcess(): void {
  installBootPieces();
}
