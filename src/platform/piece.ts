import type { LoggerService } from '@nestjs/common';
import type { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import type { ServerOptions } from 'node:http';
import type { DataSource } from 'typeorm';

/** What a process that will be the relay gives the 'boot' pieces: nothing yet (no configuration, no logger). */
export type ProcessBoot = null;

/** What a process that is the relay (npm start, `svc relay`) gives the 'process' pieces. */
export interface ProcessStart {
  logger?: LoggerService;
  /** Settles once the relay listens. */
  listening: Promise<unknown>;
}

/** The HTTP adapter NestFactory.create will build the server with; a piece may put its own. */
export interface HttpAdapterSlot {
  adapter: ExpressAdapter | null;
  /** What Node reads only when the server is created (connectionsCheckingInterval): the adapter passes it on. */
  serverOptions: ServerOptions;
}

/**
 * When each phase runs, from exactly one place each (install.ts):
 * - 'boot': bootRelayProcess, first thing in a process that will be the relay (npm start, `svc relay`),
 *   before the application's modules load: V8 settings its first full collection must already see;
 * - 'process': startRelayProcess, for a process that is the relay; relays built inside a test
 *   process leave that process's V8 alone;
 * - 'http-adapter': createRelayApp, before NestFactory.create builds the server;
 * - 'app': createRelayApp, right after NestFactory.create, before listen/init;
 * - 'data-source': DatabaseModule's data source factory, before initialize() (migrations), so also
 *   for the CLI's application contexts.
 */
export interface PhaseTargets {
  boot: ProcessBoot;
  process: ProcessStart;
  'http-adapter': HttpAdapterSlot;
  app: NestExpressApplication;
  'data-source': DataSource;
}
export type Phase = keyof PhaseTargets;

/**
 * One change to how a dependency (or Node, or V8) behaves: a patched method, a private field read,
 * a runtime flag, a driver wrapper. The fences spec (test/common/framework-fences.e2e-spec.ts) walks
 * every piece: the versions, the fingerprint, and that its internals are read nowhere else.
 */
export interface Piece<P extends Phase = Phase> {
  name: string;
  /** What it changes, in the dependency's own terms. */
  changes: string;
  /** The measured gain that pays for it, and where it is written up (docs anchor). */
  why: string;
  /**
   * Exact versions it was read against: a package name, `a > b` for the copy of `b` that `a` loads
   * (ws through @nestjs/platform-ws), or `node` (its major is what is fenced).
   */
  checkedAgainst: Readonly<Record<string, string>>;
  phase: P;
  /** Of the relied-on sources (or the engine's version where there is no source), computed now. */
  fingerprint(): string;
  /** The fingerprints it was checked against (more than one when two copies are in use). */
  expected: readonly string[];
  /**
   * Run by installPlatform(phase). Absent for a piece the code calls where it is needed (a reader
   * of an internal, a class given to the dependency through its own public option), and for one
   * not yet moved here (notYetMoved says from where it is installed today).
   */
  install?(target: PhaseTargets[P]): void;
  /**
   * Still outside src/platform/: the files that may name its internals until it moves (the fence
   * exempts exactly these), and where it is installed from meanwhile. Shrinks as pieces move.
   */
  notYetMoved?: { files: readonly string[]; installedFrom: string };
}

/** A piece of any phase, as the list holds them. */
export type AnyPiece = { [P in Phase]: Piece<P> }[Phase];
