import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { AppCatalogue } from '../app-catalogue/app-catalogue.service';
import type { AppEntity } from '../app-catalogue/app.entity';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import { RelayConfig } from '../config/relay-config';
import { GatePolicy, GatePolicyError, parseGatePolicy } from '../config/release-gate-config';
import { GatePolicyChangedEvent } from './events/gate-changed.event';
import { ReleaseGateRepository } from './release-gate.repository';

export type PolicySource = 'file' | 'dashboard';

/** The policy that applies to a build, and where it comes from. */
export interface AppliedPolicy {
  policy: GatePolicy;
  scope: 'app' | 'default';
  source: PolicySource;
}

export interface PolicyEntry {
  policy: GatePolicy;
  source: PolicySource;
  updatedAt: Date | null;
}

const DEFAULT_SCOPE = 'default';
const appScope = (appId: number) => `app:${appId}`;

/**
 * Release-gate policies (docs/release-gate.md "Policies"): svc.config.json `releaseGate` (read-only
 * here: the file is the operator's, kept in version control) and what Admins set in the dashboard.
 * For a build, the first of: its app's policy from the file (by bundle id), its app's from the
 * dashboard, the file's default, the dashboard's default. No policy: no gate.
 */
@Injectable()
export class GatePoliciesService {
  constructor(
    private readonly repository: ReleaseGateRepository,
    private readonly apps: AppCatalogue,
    private readonly config: RelayConfig,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  /** Whether any app or the team has a policy (the file's or the dashboard's): without one no build has a gate. */
  async anyPolicy(): Promise<boolean> {
    const file = this.config.releaseGate;
    if (file.default || Object.keys(file.apps).length) return true;
    return (await this.repository.policies()).size > 0;
  }

  async policyFor(app: Pick<AppEntity, 'id' | 'bundleIdKey'>): Promise<AppliedPolicy | null> {
    const file = this.config.releaseGate;
    const fromFile = file.apps[app.bundleIdKey];
    if (fromFile) return { policy: fromFile, scope: 'app', source: 'file' };
    const stored = await this.repository.policies();
    const own = stored.get(appScope(app.id));
    if (own) return { policy: parseGatePolicy(JSON.parse(own.policy)), scope: 'app', source: 'dashboard' };
    if (file.default) return { policy: file.default, scope: 'default', source: 'file' };
    const team = stored.get(DEFAULT_SCOPE);
    return team ? { policy: parseGatePolicy(JSON.parse(team.policy)), scope: 'default', source: 'dashboard' } : null;
  }

  /** Every policy: the default, apps' from the dashboard (by app id) and the file's (by bundle id). */
  async list(): Promise<{ default: PolicyEntry | null; apps: { app: AppEntity | null; bundleId: string; entry: PolicyEntry }[] }> {
    const file = this.config.releaseGate;
    const stored = await this.repository.policies();
    const apps = await this.apps.all();
    const team = stored.get(DEFAULT_SCOPE);
    const result: { app: AppEntity | null; bundleId: string; entry: PolicyEntry }[] = [];
    for (const [bundleId, policy] of Object.entries(file.apps)) {
      const matching = apps.filter((a) => a.bundleIdKey === bundleId);
      for (const app of matching.length ? matching : [null]) result.push({ app, bundleId, entry: { policy, source: 'file', updatedAt: null } });
    }
    for (const app of apps) {
      const own = stored.get(appScope(app.id));
      if (own && !file.apps[app.bundleIdKey]) result.push({ app, bundleId: app.bundleIdKey, entry: { policy: parseGatePolicy(JSON.parse(own.policy)), source: 'dashboard', updatedAt: own.updatedAt } });
    }
    return {
      default: file.default
        ? { policy: file.default, source: 'file', updatedAt: null }
        : team
          ? { policy: parseGatePolicy(JSON.parse(team.policy)), source: 'dashboard', updatedAt: team.updatedAt }
          : null,
      apps: result,
    };
  }

  /** Saves the team default (null removes it); refused while svc.config.json sets it. */
  async saveDefault(actor: Principal, raw: unknown | null): Promise<GatePolicy | null> {
    if (this.config.releaseGate.default) throw conflict('The team default is set in svc.config.json (releaseGate.default): change it there');
    return this.save(actor, DEFAULT_SCOPE, raw, null);
  }

  /** Saves an app's own policy (null removes it: the default applies again); refused while svc.config.json sets it. */
  async saveForApp(actor: Principal, appId: number, raw: unknown | null): Promise<GatePolicy | null> {
    const app = await this.apps.findById(appId);
    if (!app) throw notFound(ErrorMessages.appNotFound);
    if (this.config.releaseGate.apps[app.bundleIdKey]) {
      throw conflict(`The policy of ${app.bundleIdKey} is set in svc.config.json (releaseGate.apps): change it there`);
    }
    return this.save(actor, appScope(appId), raw, appId);
  }

  private async save(actor: Principal, scope: string, raw: unknown | null, appId: number | null): Promise<GatePolicy | null> {
    const policy = raw === null ? null : validated(raw);
    if (policy) await this.repository.savePolicy(scope, JSON.stringify(policy), this.clock.now());
    else await this.repository.removePolicy(scope);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), policy ? 'release_gate.policy_saved' : 'release_gate.policy_removed', appId === null ? 'release_gate:default' : `app:${appId}`, policy ? { policy: JSON.stringify(policy) } : {}));
    this.events.emit(GatePolicyChangedEvent.eventName, new GatePolicyChangedEvent(appId));
    return policy;
  }
}

/** 400 naming the setting or rule at fault. */
function validated(raw: unknown): GatePolicy {
  try {
    return parseGatePolicy(raw);
  } catch (err) {
    if (err instanceof GatePolicyError) throw badRequest(`Invalid release gate policy: ${err.message}`);
    throw err;
  }
}
