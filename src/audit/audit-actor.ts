import type { Principal } from '../common/auth/principal';
import { AuditEvent, AuditVia } from './audit-event';

/** Who did something, as an audit entry names them. */
export interface AuditActor {
  actorId: number | null;
  actorLabel: string;
  via: AuditVia;
  clientAddress: string | null;
}

type Details = Record<string, string | number | boolean | null>;

/** The relay itself (scheduled purges, retention). */
export const RELAY_ACTOR: AuditActor = { actorId: null, actorLabel: 'relay', via: 'system', clientAddress: null };

/** The operator at the relay's machine (`svc backup`, `svc restore`, `svc admin …`). */
export const CLI_ACTOR: AuditActor = { actorId: null, actorLabel: 'operator', via: 'cli', clientAddress: null };

/** The member behind a request; PAT calls made by the relay's MCP tools say so (docs/audit.md). */
export function actorOf(principal: Pick<Principal, 'userId' | 'email' | 'via' | 'clientAddress' | 'viaMcp'>): AuditActor {
  return {
    // An identity provider's SCIM token is no member (its principal's userId is 0): no member id.
    actorId: principal.via === 'scim' ? null : principal.userId,
    actorLabel: principal.email,
    via: principal.viaMcp ? 'mcp' : principal.via,
    clientAddress: principal.clientAddress,
  };
}

/** Someone not signed in (a failed sign-in, an invitation being accepted, a reset link used). */
export function anonymousActor(label: string, clientAddress: string | null): AuditActor {
  return { actorId: null, actorLabel: label, via: 'anonymous', clientAddress };
}

export function auditEvent(actor: AuditActor, action: string, target: string | null, details: Details = {}): AuditEvent {
  return new AuditEvent(action, actor.actorId, actor.actorLabel, actor.via, target, actor.clientAddress, details);
}
