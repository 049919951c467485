import type { z } from 'zod';
import { clusterSchema, type ZodApi } from '../../cluster/cluster-schema';
import { AGENT_NAME_PATTERN, MAX_DEVICES, MAX_ID_LENGTH, MAX_MESSAGE_BYTES } from './agent-protocol';

/**
 * What instances tell each other about agents through Redis (docs/scaling.md), as schemas: every
 * message is checked against one after its signature (ClusterBus), and every value read back from
 * the shared directory's hashes before it is used. Each is built on first use (clusterSchema).
 */

const agentName = (z: ZodApi) => z.string().regex(AGENT_NAME_PATTERN);
const shortString = (z: ZodApi) => z.string().min(1).max(MAX_ID_LENGTH);

/** A device-session client's message is at most 1 MiB (device-session.gateway.ts); the request carrying its parameters a little more. */
export const MAX_REMOTE_REQUEST_BYTES = 1024 * 1024 + 64 * 1024;
/** An answer carries the agent's binary payload (a screenshot), up to the agent's message limit. */
export const MAX_REMOTE_REPLY_BYTES = MAX_MESSAGE_BYTES + 64 * 1024;

/** What one instance asks the instance holding an agent's socket. */
export const remoteRequestSchema = clusterSchema((z) =>
  z.object({
    id: z.uuid(),
    replyTo: z.uuid(),
    agentName: agentName(z),
    method: shortString(z),
    params: z.record(z.string(), z.unknown()),
    timeoutMs: z.int().min(1).max(3_600_000),
  }),
);
export type RemoteRequest = z.infer<ReturnType<typeof remoteRequestSchema>>;

/** The header of the answer (its binary payload follows it, as in a binary agent frame). */
export const remoteReplySchema = clusterSchema((z) =>
  z.object({
    id: z.uuid(),
    outcome: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('ok'), result: z.unknown() }),
      z.object({ kind: z.literal('error'), code: z.string(), message: z.string() }),
      z.object({ kind: z.enum(['offline', 'busy', 'timeout']) }),
    ]),
  }),
);

/** An instance now holds an agent's socket. */
export const agentClaimedSchema = clusterSchema((z) => z.object({ agentName: agentName(z), instanceId: z.uuid() }));

/** Shared hashes: agents:devices (an agent's device list, JSON), agents:sessions (session → agent), agents:online (agent → instance). */
export const storedDevicesSchema = clusterSchema((z) =>
  z
    .array(
      z.object({
        sessionId: shortString(z),
        name: z.string().max(MAX_ID_LENGTH),
        platform: z.string().max(MAX_ID_LENGTH),
        state: z.enum(['booted', 'shutdown']),
        osVersion: z.string().max(MAX_ID_LENGTH),
      }),
    )
    .max(MAX_DEVICES),
);
export const storedAgentNameSchema = clusterSchema(agentName);
export const storedInstanceIdSchema = clusterSchema((z) => z.uuid());
