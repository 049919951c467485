import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { createPrivateKey } from 'node:crypto';
import { actorOf, auditEvent } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import type { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { SECRETS_KEY_ENV, SecretBox } from '../../common/crypto/secret-box';
import { badRequest, conflict, notFound } from '../../common/errors/http-error';
import { isUniqueViolation } from '../../database/unique-violation';
import { DestinationGuard, DestinationRefused } from '../../webhooks/destination/destination-guard';
import type { CreateForgeDto } from '../dto/create-forge.dto';
import type { UpdateForgeDto } from '../dto/update-forge.dto';
import { ForgesChangedEvent } from '../events/forges-changed.event';
import { ForgeDirectory } from '../forge-directory';
import { ForgeItem, toForgeItem } from '../forges.mapper';
import { FORGE_NOT_FOUND, forgeName } from '../forges.service';
import { ForgeOutboxRepository } from '../outbox/forge-outbox.repository';
import { defaultContext, PRIVATE_KEY_PURPOSE, TOKEN_PURPOSE } from './dashboard-forge';
import { DashboardForgesRepository } from './dashboard-forges.repository';
import type { ForgeEntity } from './forge.entity';

export const SECRETS_KEY_MISSING = `Forges added in the dashboard keep their token encrypted: set ${SECRETS_KEY_ENV} in the relay's environment (32 random bytes, e.g. openssl rand -base64 32) and restart the relay`;

type Secrets = Pick<ForgeEntity, 'tokenSealed' | 'appId' | 'installationId' | 'privateKeySealed'>;

/**
 * Forges an Admin adds in the dashboard (docs/integrations.md "Forges added in the dashboard"):
 * the token or App key sealed with SVC_SECRETS_KEY and never returned; the URL held to the rule of
 * API-registered webhooks; each repository served by one forge only (409 for a second claim).
 */
@Injectable()
export class DashboardForgesService {
  constructor(
    private readonly rows: DashboardForgesRepository,
    private readonly directory: ForgeDirectory,
    private readonly outbox: ForgeOutboxRepository,
    private readonly box: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  async create(actor: Principal, dto: CreateForgeDto): Promise<ForgeItem> {
    const secrets = this.secretsOf(dto.type, dto, null);
    if (!secrets) throw badRequest('token is required (or, for GitHub, app_id, installation_id and private_key)');
    const url = await this.checkUrl(dto.url);
    const repositories = this.checkClaims(dto.repositories, null);
    const now = this.clock.now();
    const context = dto.context ?? defaultContext(!!secrets.appId);
    const forge = await this.claiming(() => this.rows.create({ type: dto.type, url, context, ...secrets, createdAt: now, updatedAt: now }, repositories));
    await this.changed(forge.id);
    this.audit(actor, 'forge.created', forge.id, { type: dto.type, destination: new URL(url).origin, repositories: repositories.join(', ').slice(0, 500), auth: secrets.appId ? 'app' : 'token' });
    return this.itemOf(forge.id);
  }

  async update(actor: Principal, id: number, dto: UpdateForgeDto): Promise<ForgeItem> {
    const fields = (Object.keys(dto) as (keyof UpdateForgeDto)[]).filter((k) => dto[k] !== undefined);
    if (!fields.length) throw badRequest('Nothing to update: send url, repositories, context, token, or app_id, installation_id and private_key');
    const found = await this.rows.findOne(id);
    if (!found) throw notFound(FORGE_NOT_FOUND);
    const changes: Partial<Omit<ForgeEntity, 'id'>> = { ...this.secretsOf(found.forge.type, dto, found.forge) };
    if (dto.url !== undefined) changes.url = await this.checkUrl(dto.url);
    if (dto.context !== undefined) changes.context = dto.context;
    const repositories = dto.repositories ? this.checkClaims(dto.repositories, id) : null;
    await this.claiming(() => this.rows.update(id, { ...changes, updatedAt: this.clock.now() }, repositories));
    await this.changed(id);
    // Which fields changed and where to; a secret is only said to have changed.
    const details: Record<string, string | boolean> = { fields: fields.sort().join(',') };
    if (changes.url) details.destination = new URL(changes.url).origin;
    if (repositories) details.repositories = repositories.join(', ').slice(0, 500);
    if (dto.token !== undefined || dto.private_key !== undefined) details.credential_replaced = true;
    this.audit(actor, 'forge.updated', id, details);
    return this.itemOf(id);
  }

  async remove(actor: Principal, id: number): Promise<void> {
    const found = await this.rows.findOne(id);
    if (!found || !(await this.rows.remove(id))) throw notFound(FORGE_NOT_FOUND);
    await this.outbox.forgetForge(`dashboard:${id}`);
    await this.changed(id);
    this.audit(actor, 'forge.deleted', id, { type: found.forge.type, destination: new URL(found.forge.url).origin, repositories: found.repositories.join(', ').slice(0, 500) });
  }

  /**
   * The sealed secrets a request sets, or null when it sets none. A token makes the forge a token
   * forge; any App field makes it an App (GitHub only), with all three known afterwards.
   */
  private secretsOf(type: ForgeEntity['type'], dto: UpdateForgeDto, current: ForgeEntity | null): Secrets | null {
    const appGiven = dto.app_id !== undefined || dto.installation_id !== undefined || dto.private_key !== undefined;
    if (dto.token === undefined && !appGiven) return null;
    if (dto.token !== undefined && appGiven) throw badRequest('Send either token, or app_id, installation_id and private_key, not both');
    if (!this.box.configured) throw badRequest(SECRETS_KEY_MISSING);
    if (dto.token !== undefined) return { tokenSealed: this.box.seal(dto.token, TOKEN_PURPOSE), appId: null, installationId: null, privateKeySealed: null };
    if (type !== 'github') throw badRequest('A GitHub App (app_id, installation_id, private_key) is only for type github');
    const appId = dto.app_id ?? current?.appId;
    const installationId = dto.installation_id ?? current?.installationId;
    const privateKeySealed = dto.private_key !== undefined ? this.box.seal(checkPrivateKey(dto.private_key), PRIVATE_KEY_PURPOSE) : current?.privateKeySealed;
    if (!appId || !installationId || !privateKeySealed) throw badRequest('A GitHub App needs app_id, installation_id and private_key');
    return { tokenSealed: null, appId, installationId, privateKeySealed };
  }

  /** The SSRF rule of webhooks registered through the API (the same guard runs again on every request). */
  private async checkUrl(raw: string): Promise<string> {
    try {
      await this.guard.vet(raw, 'api');
    } catch (err) {
      if (err instanceof DestinationRefused) throw badRequest(`Forge URL refused: ${err.reason}`);
      throw err;
    }
    return raw.replace(/\/+$/, '');
  }

  /** The list without repeats; 409 when another forge (file or dashboard) already serves one of them. */
  private checkClaims(repositories: string[], id: number | null): string[] {
    const unique = [...new Map(repositories.map((r) => [r.toLowerCase(), r])).values()];
    for (const repository of unique) {
      const owner = this.directory.forRepository(repository);
      if (owner && !(owner.source === 'dashboard' && owner.index === id)) throw conflict(`${repository} is already served by ${forgeName(owner)}`);
    }
    return unique;
  }

  /** A claim made by another request meanwhile surfaces as the unique key on forge_repositories. */
  private async claiming<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('One of the repositories is already served by another forge');
      throw err;
    }
  }

  /** This instance reads the forges again before answering; the event tells the others (and starts the sender). */
  private async changed(id: number): Promise<void> {
    await this.directory.reload();
    this.events.emit(ForgesChangedEvent.eventName, new ForgesChangedEvent(id));
  }

  private itemOf(id: number): ForgeItem {
    const entry = this.directory.find('dashboard', id);
    if (!entry) throw notFound(FORGE_NOT_FOUND);
    return toForgeItem(entry);
  }

  private audit(actor: Principal, action: string, id: number, details: Record<string, string | boolean>): void {
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), action, `forge:${id}`, details));
  }
}

/** A GitHub App's key must be a private key Node can sign with (the .pem GitHub gives). */
function checkPrivateKey(pem: string): string {
  try {
    if (createPrivateKey(pem).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw badRequest("private_key must be the App's PEM private key (the .pem file GitHub gave)");
  }
  return pem;
}
