import type { SessionPlace } from '../../agents/agent-locator.service';

/** A WebDriver client's status of its own session (`svc:status`), as clouds let it mark one. */
export interface ClientVerdict {
  status: 'passed' | 'failed';
  reason: string | null;
}

/** One automated session the hub runs: a device held, an Appium session on it, and who asked. */
export interface HubSession {
  /** Appium's session id, which the client uses in every path. */
  id: string;
  userId: number;
  member: string;
  place: SessionPlace;
  buildId: number | null;
  runName: string | null;
  startedAt: Date;
  newCommandTimeoutMs: number;
  idleTimer: NodeJS.Timeout | null;
  verdict: ClientVerdict | null;
  /** Commands in flight: the idle timer runs only while none is. */
  busy: number;
}

/** Why a session ended, as the client hears it on its next command and the run records it. */
export type EndReason = 'deleted' | 'idle' | 'client gone' | 'agent offline' | 'ended by an Admin' | 'relay stopping';
