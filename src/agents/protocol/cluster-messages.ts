import { z } from 'zod';
import { AGENT_NAME_PATTERN, MAX_DEVICES, MAX_ID_LENGTH, MAX_MESSAGE_BYTES } from './agent-protocol';

/**
 * What instances tell each other about agents through Redis (docs/scaling.md), as schemas: every
 * message is checked against one after its signature (ClusterBus), and every value read back from
 * the shared directory's hashes before it is used.
 */

const agentName = z.string().regex(AGENT_NAME_PATTERN);
const shortString = z.string().min(1).max(MAX_ID_LENGTH);

/** A device-session client's message is at most 1 MiB (device-session.gateway.ts); the request carrying its parameters a little more. */
export const MAX_REMOTE_REQUEST_BYTES = 1024 * 1024 + 64 * 1024;
/** An answer carries the agent's binary payload (a screenshot), up to the agent's message limit. */
export const MAX_REMOTE_REPLY_BYTES = MAX_MESSAGE_BYTES + 64 * 1024;

/** What one instance asks the instance holding an agent's socket. */
export const remoteRequestSchema = z.object({
  id: z.uuid(),
  replyTo: z.uuid(),
  agentName,
  method: shortString,
  params: z.record(z.string(), z.unknown()),
  timeoutMs: z.int().min(1).max(3_600_000),
});
export type RemoteRequest = z.infer<typeof remoteRequestSchema>;

/** The header of the answer (its binary payload follows it, as in a binary agent frame). */
export const remoteReplySchema = z.object({
  id: z.uuid(),
  outcome: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('ok'), result: z.unknown() }),
    z.object({ kind: z.literal('error'), code: z.string(), message: z.string() }),
    z.object({ kind: z.enum(['offline', 'busy', 'timeout']) }),
  ]),
});

/** An instance now holds an agent's socket. */
export const agentClaimedSchema = z.object({ agentName, instanceId: z.uuid() });

/** Shared hashes: agents:devices (an agent's device list, JSON), agents:sessions (session → agent), agents:online (agent → instance). */
export const storedDevicesSchema = z
  .array(
    z.object({
      sessionId: shortString,
      name: z.string().max(MAX_ID_LENGTH),
      platform: z.string().max(MAX_ID_LENGTH),
      state: z.enum(['booted', 'shutdown']),
      osVersion: z.string().max(MAX_ID_LENGTH),
    }),
  )
  .max(MAX_DEVICES);
export const storedAgentNameSchema = agentName;
export const storedInstanceIdSchema = z.uuid();
