/**
 * WebSocket close codes the relay sends (agent-protocol.md §1, §3): RFC 6455's own and the protocol's
 * 4xxx. Here rather than in the agents feature because common/net (the upgrade adapter, credential
 * expiry) closes sockets with them too; agent-protocol.ts re-exports them for the agent's side.
 */
export const CloseCode = {
  goingAway: 1001,
  tooBig: 1009,
  replaced: 4000,
  revoked: 4001,
  forbidden: 4003,
  agentGone: 4502,
} as const;
