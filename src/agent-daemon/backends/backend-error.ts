import type { AgentErrorCode } from '../../agents/protocol/agent-protocol';

/** A request the backend refuses, with the protocol's error code (agent-protocol §2.4). */
export class BackendError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const unsupported = (what: string) => new BackendError('unsupported', `${what} is not supported here`);
