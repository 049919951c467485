import { Injectable } from '@nestjs/common';
import { AgentConnection } from './agent-connection';
import type { AgentHello, DeviceInfo } from './protocol/agent-protocol';

/** Where a sessionId lives: its device as last listed, the agent that listed it, and that agent's socket if open. */
export interface SessionLocation {
  device: DeviceInfo;
  agentName: string;
  connection: AgentConnection | null;
}

/** A sessionId an agent listed that another connected agent owns: not given to the newcomer (agent-protocol §2.2). */
export interface RefusedSession {
  sessionId: string;
  owner: string;
}

/**
 * The relay's in-memory view of agents: the open socket per agent name, and the last device list
 * of every agent seen since start-up (so a session of an agent that went away is "offline", not
 * "unknown"). A sessionId is unique across agents: it belongs to the agent that listed it, and
 * another agent may take it only while that one is not connected (docs/agents.md).
 */
@Injectable()
export class AgentDirectory {
  private readonly connected = new Map<string, AgentConnection>();
  private readonly lists = new Map<string, DeviceInfo[]>();
  private readonly owners = new Map<string, string>();
  /** What each agent said in its last hello (kept after it goes offline, for the agents page). */
  private readonly hellos = new Map<string, AgentHello>();

  /** Makes `connection` the agent's socket; returns the one it replaces, if any. */
  register(connection: AgentConnection): AgentConnection | undefined {
    const previous = this.connected.get(connection.name);
    this.connected.set(connection.name, connection);
    return previous;
  }

  /** Forgets a closed socket; true when the agent is now offline (it was not replaced meanwhile). */
  unregister(connection: AgentConnection): boolean {
    if (this.connected.get(connection.name) !== connection) return false;
    this.connected.delete(connection.name);
    return true;
  }

  connection(name: string): AgentConnection | undefined {
    return this.connected.get(name);
  }

  all(): AgentConnection[] {
    return [...this.connected.values()];
  }

  setHello(agentName: string, hello: AgentHello): void {
    this.hellos.set(agentName, hello);
  }

  lastHello(agentName: string): AgentHello | undefined {
    return this.hellos.get(agentName);
  }

  /** Names of every agent seen since start-up (connected now or not). */
  namesSeen(): string[] {
    return [...new Set([...this.connected.keys(), ...this.lists.keys(), ...this.hellos.keys()])];
  }

  /**
   * Replaces the agent's list, without the sessions another connected agent owns: those stay with
   * their owner and are returned. `heldElsewhere` names owners connected to other instances.
   */
  setDevices(agentName: string, devices: DeviceInfo[], heldElsewhere: ReadonlyMap<string, string> = new Map()): RefusedSession[] {
    const refused: RefusedSession[] = [];
    const accepted = devices.filter((device) => {
      const owner = this.ownerConnectedHere(device.sessionId, agentName) ?? heldElsewhere.get(device.sessionId);
      if (owner) refused.push({ sessionId: device.sessionId, owner });
      return !owner;
    });
    for (const old of this.lists.get(agentName) ?? []) {
      if (this.owners.get(old.sessionId) === agentName) this.owners.delete(old.sessionId);
    }
    this.lists.set(agentName, accepted);
    for (const device of accepted) this.owners.set(device.sessionId, agentName);
    return refused;
  }

  /** The other agent that owns `sessionId`, when its socket is open here. */
  ownerConnectedHere(sessionId: string, agentName: string): string | undefined {
    const owner = this.owners.get(sessionId);
    return owner !== undefined && owner !== agentName && this.connected.has(owner) ? owner : undefined;
  }

  /** The agent's sessions as it last listed them (still owned by it). */
  sessionIdsOf(agentName: string): string[] {
    return (this.lists.get(agentName) ?? [])
      .map((d) => d.sessionId)
      .filter((id) => this.owners.get(id) === agentName);
  }

  /** Every device of every agent seen since start-up (as each last listed it), with where it lives. */
  allDevices(): SessionLocation[] {
    const found: SessionLocation[] = [];
    for (const agentName of this.lists.keys()) {
      for (const sessionId of this.sessionIdsOf(agentName)) {
        const location = this.locate(sessionId);
        if (location) found.push(location);
      }
    }
    return found;
  }

  locate(sessionId: string): SessionLocation | null {
    const agentName = this.owners.get(sessionId);
    if (!agentName) return null;
    const device = this.lists.get(agentName)?.find((d) => d.sessionId === sessionId);
    if (!device) return null;
    return { device, agentName, connection: this.connected.get(agentName) ?? null };
  }
}
