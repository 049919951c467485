import { Injectable, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { badRequest } from '../common/errors/http-error';
import { TransactionRunner } from '../database/transaction-runner';
import { ImageForm, StoredImagesService } from '../images/stored-images.service';
import { toTeamSettings, type TeamSettings } from './settings.mapper';
import type { ReviewPolicyDto } from './dto/review-policy.dto';
import type { UpdateSettingsFields } from './dto/update-settings.dto';
import { TeamSettingsEntity } from './team-settings.entity';
import { TeamSettingsRepository } from './team-settings.repository';

const SETTINGS_ID = 1;

@Injectable()
export class SettingsService implements OnModuleInit {
  constructor(
    private readonly settings: TeamSettingsRepository,
    private readonly images: StoredImagesService,
    private readonly transactions: TransactionRunner,
    private readonly events: EventEmitter2,
  ) {}

  /** A logo the settings no longer name is swept as an unreferenced upload. */
  onModuleInit(): void {
    this.images.registerOwner('logos', async () => [await this.logoPath()].filter((p): p is string => p !== null));
  }

  async read(): Promise<TeamSettings> {
    return toTeamSettings(await this.row());
  }

  async teamName(): Promise<string> {
    return (await this.row()).teamName;
  }

  /** GET /settings/review: what the Reject dialog asks for. */
  async reviewPolicy(): Promise<ReviewPolicyDto> {
    return { reject_reason_required: (await this.row()).rejectReasonRequired };
  }

  /** PUT /settings/review (Admin). */
  async setReviewPolicy(actor: Principal, policy: ReviewPolicyDto): Promise<ReviewPolicyDto> {
    await this.transactions.run((tx) => this.settings.update({ rejectReasonRequired: policy.reject_reason_required }, tx));
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'settings.updated', 'settings:team', { reject_reason_required: policy.reject_reason_required }));
    return this.reviewPolicy();
  }

  async logoPath(): Promise<string | null> {
    return (await this.row()).logoPath;
  }

  /** The logo inlined as a data: URL, for a page opened without an account (a share link's install page); null without one. */
  async logoDataUrl(): Promise<string | null> {
    const path = await this.logoPath();
    const file = path ? await this.images.resolveServed(path) : null;
    if (!file) return null;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await this.images.open(file)) chunks.push(chunk as Buffer);
      return `data:${file.mime};base64,${Buffer.concat(chunks).toString('base64')}`;
    } catch {
      return null; // replaced meanwhile: the page shows the name alone
    }
  }

  /** PATCH /settings (multipart `team_name`, file `logo`); a new logo replaces and deletes the old file. */
  async update(actor: Principal, form: ImageForm<UpdateSettingsFields>): Promise<void> {
    try {
      const name = form.fields.team_name;
      const logo = form.image('logo');
      if (name === undefined && !logo) throw badRequest('Nothing to update: send team_name or logo');
      const changes: Partial<TeamSettingsEntity> = {};
      if (name !== undefined) changes.teamName = name;
      if (logo) changes.logoPath = await this.images.keep(logo);
      let previousLogo: string | null;
      try {
        // Read and replace in one transaction, so two logos sent at once each delete the other's file.
        previousLogo = await this.transactions.run(async (tx) => {
          const before = await this.settings.find(tx);
          await this.settings.update(changes, tx);
          return before?.logoPath ?? null;
        });
      } catch (err) {
        await this.images.remove(changes.logoPath);
        throw err;
      }
      if (logo) await this.images.remove(previousLogo);
      this.events.emit(
        AUDIT_EVENT,
        auditEvent(actorOf(actor), 'settings.updated', 'settings:team', { ...(name !== undefined ? { team_name: name } : {}), logo_changed: !!logo }),
      );
    } finally {
      await form.discard();
    }
  }

  private async row(): Promise<TeamSettingsEntity> {
    const row = await this.settings.find();
    // The migration creates the row; should it ever be missing, fall back to the default.
    return row ?? Object.assign(new TeamSettingsEntity(), { id: SETTINGS_ID, teamName: 'My team', logoPath: null, rejectReasonRequired: false });
  }
}
