/** An agent's socket closed and no other socket took its name: its sessions are offline (clients close 4502). */
export class AgentOfflineEvent {
  static readonly eventName = 'agent.offline';
  constructor(
    readonly agentName: string,
    readonly sessionIds: string[],
  ) {}
}
