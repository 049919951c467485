import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ClusterBus } from '../cluster/cluster-bus';
import { AgentConnection } from './agent-connection';
import { AgentDirectory, RefusedSession, SessionLocation } from './agent-directory.service';
import { CloseCode, DeviceInfo } from './protocol/agent-protocol';
import { agentClaimedSchema, storedAgentNameSchema, storedDevicesSchema, storedInstanceIdSchema } from './protocol/cluster-messages';

/** Where a session lives, seen from this instance: its socket here, or the instance that holds it. */
export interface SessionPlace extends SessionLocation {
  /** The instance holding the owning agent's socket (this one or another); null when the agent is offline. */
  instanceId: string | null;
}

const DEVICES = 'agents:devices';
const OWNERS = 'agents:sessions';
const ONLINE = 'agents:online';
const CLAIMED = 'agents:claimed';
const FORGET_IF_OURS = `if redis.call('hget', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('hdel', KEYS[1], ARGV[1]) else return 0 end`;

/**
 * Agents and their devices as every instance sees them. Alone, that is the AgentDirectory of this
 * process. With Redis (docs/scaling.md) each instance also writes what its own sockets say (device
 * lists, who owns a session, which instance holds an agent) to shared hashes, and reads them to
 * find a session whose agent is connected elsewhere; a socket it holds is always found locally
 * first. An agent connecting to another instance under the same name replaces this one's (4000),
 * as agent-protocol §1 says for one relay. What is read back from the hashes is checked before use
 * (a value that does not fit is logged and taken as absent): Redis is a trust boundary.
 */
@Injectable()
export class AgentLocator implements OnModuleInit {
  private readonly logger = new Logger('Agents');
  /** Shared writes, in the order the sockets said things (a device list after the connect, …). */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly directory: AgentDirectory,
    private readonly bus: ClusterBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.bus.subscribeJson(CLAIMED, agentClaimedSchema, (claim) => this.claimedElsewhere(claim));
  }

  /** This instance now holds the agent's socket. */
  connected(agentName: string): void {
    this.write(async (redis) => {
      await redis.hset(this.bus.key(ONLINE), agentName, this.bus.instanceId);
      await this.bus.publish(CLAIMED, JSON.stringify({ agentName, instanceId: this.bus.instanceId }));
    });
  }

  /**
   * The agent's device list as its socket here just sent it, minus the sessions another connected
   * agent owns (here or, while clustered, on another instance): those are returned, not taken.
   */
  listed(agentName: string, devices: DeviceInfo[]): Promise<RefusedSession[]> {
    if (!this.bus.clustered) return Promise.resolve(this.directory.setDevices(agentName, devices));
    let refused: RefusedSession[] = [];
    this.write(async (redis) => {
      refused = this.directory.setDevices(agentName, devices, await this.heldElsewhere(agentName, devices));
      const accepted = devices.filter((d) => !refused.some((r) => r.sessionId === d.sessionId));
      const previous = this.devices(agentName, await redis.hget(this.bus.key(DEVICES), agentName));
      const owners = previous.length ? await redis.hmget(this.bus.key(OWNERS), ...previous.map((d) => d.sessionId)) : [];
      const gone = previous.filter((d, i) => owners[i] === agentName).map((d) => d.sessionId);
      const batch = redis.multi();
      if (gone.length) batch.hdel(this.bus.key(OWNERS), ...gone);
      batch.hset(this.bus.key(DEVICES), agentName, JSON.stringify(accepted));
      for (const device of accepted) batch.hset(this.bus.key(OWNERS), device.sessionId, agentName);
      await batch.exec();
    });
    return this.writes.then(() => refused);
  }

  /** The socket here closed and no socket here took its name: unless another instance holds it now, it is offline. */
  disconnected(agentName: string): void {
    this.write((redis) => redis.eval(FORGET_IF_OURS, 1, this.bus.key(ONLINE), agentName, this.bus.instanceId));
  }

  async locate(sessionId: string): Promise<SessionPlace | null> {
    const local = this.directory.locate(sessionId);
    if (local?.connection || !this.bus.clustered) return local && this.here(local);
    await this.writes;
    const owner = await this.bus.redis.hget(this.bus.key(OWNERS), sessionId);
    const agentName = this.bus.stored(`${this.bus.key(OWNERS)}[${sessionId.slice(0, 80)}]`, owner, storedAgentNameSchema);
    if (!agentName) return local && this.here(local);
    const [list, instanceId] = await Promise.all([
      this.bus.redis.hget(this.bus.key(DEVICES), agentName),
      this.bus.redis.hget(this.bus.key(ONLINE), agentName),
    ]);
    const device = this.devices(agentName, list).find((d) => d.sessionId === sessionId);
    if (!device) return local && this.here(local);
    const connection = this.directory.connection(agentName) ?? null;
    return { device, agentName, connection, instanceId: this.instanceOf(agentName, instanceId) };
  }

  /** Every device of every agent seen (by any instance, while clustered), with where it lives. */
  async allDevices(): Promise<SessionPlace[]> {
    if (!this.bus.clustered) return this.directory.allDevices().map((l) => this.here(l));
    await this.writes;
    const [lists, owners, online] = await Promise.all([
      this.bus.redis.hgetall(this.bus.key(DEVICES)),
      this.bus.redis.hgetall(this.bus.key(OWNERS)),
      this.bus.redis.hgetall(this.bus.key(ONLINE)),
    ]);
    return Object.entries(lists).flatMap(([agentName, list]) =>
      this.devices(agentName, list)
        .filter((device) => owners[device.sessionId] === agentName)
        .map((device) => ({
          device,
          agentName,
          connection: this.directory.connection(agentName) ?? null,
          instanceId: this.instanceOf(agentName, online[agentName]),
        })),
    );
  }

  /**
   * The listed sessions whose owner (another agent) has its socket on another instance, by owner.
   * Read, then written by the caller: two agents listing one new sessionId on two instances at the
   * same moment can both take it (the last write wins), as before; a takeover of an owned one cannot.
   */
  private async heldElsewhere(agentName: string, devices: DeviceInfo[]): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    if (!devices.length) return held;
    const owners = await this.bus.redis.hmget(this.bus.key(OWNERS), ...devices.map((d) => d.sessionId));
    const candidates = devices
      .map((d, i) => ({ sessionId: d.sessionId, owner: this.bus.stored(`${this.bus.key(OWNERS)}[${d.sessionId.slice(0, 80)}]`, owners[i], storedAgentNameSchema) }))
      .filter((c): c is RefusedSession => !!c.owner && c.owner !== agentName && !this.directory.connection(c.owner));
    if (!candidates.length) return held;
    const online = await this.bus.redis.hmget(this.bus.key(ONLINE), ...candidates.map((c) => c.owner));
    candidates.forEach((c, i) => {
      const instanceId = this.instanceOf(c.owner, online[i]);
      if (instanceId && instanceId !== this.bus.instanceId) held.set(c.sessionId, c.owner);
    });
    return held;
  }

  private here(location: SessionLocation): SessionPlace {
    return { ...location, instanceId: location.connection ? this.bus.instanceId : null };
  }

  /** An agent's device list as stored in Redis (the agent's name is a field there too); none when either does not fit. */
  private devices(agentName: string, list: string | null | undefined): DeviceInfo[] {
    const where = `${this.bus.key(DEVICES)}[${agentName.slice(0, 80)}]`;
    if (!this.bus.stored(where, agentName, storedAgentNameSchema)) return [];
    return this.bus.stored(where, list, storedDevicesSchema, true) ?? [];
  }

  /** The instance holding an agent's socket, as stored in Redis. */
  private instanceOf(agentName: string, instanceId: string | null | undefined): string | null {
    return this.bus.stored(`${this.bus.key(ONLINE)}[${agentName}]`, instanceId, storedInstanceIdSchema);
  }

  /** Another instance took an agent whose socket is here: close ours as replaced, without an offline event. */
  private claimedElsewhere({ agentName, instanceId }: { agentName: string; instanceId: string }): void {
    if (instanceId === this.bus.instanceId) return;
    const connection: AgentConnection | undefined = this.directory.connection(agentName);
    if (!connection || !this.directory.unregister(connection)) return;
    this.logger.log(`Agent ${agentName} connected to another instance: closing its connection here`);
    connection.close(CloseCode.replaced, 'replaced');
  }

  private write(step: (redis: ClusterBus['redis']) => Promise<unknown>): void {
    if (!this.bus.clustered) return;
    this.writes = this.writes
      .then(() => step(this.bus.redis))
      .catch((err: Error) => this.logger.error(`Sharing the agent directory through Redis failed: ${err.message}`));
  }
}
