import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, anonymousActor, auditEvent, type AuditActor } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import { BuildReviewService } from '../../builds/build-review.service';
import type { Principal } from '../../common/auth/principal';
import { WRITER_ROLES } from '../../common/auth/role';
import { Clock } from '../../common/clock';
import { ErrorMessages } from '../../common/errors/error-messages';
import { HttpError, notFound, unauthorized } from '../../common/errors/http-error';
import { BuildReviewsService, ReviewMessages } from '../../release-gate/build-reviews.service';
import type { UserEntity } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { SLACK_ACTIONS } from '../build-notice';
import { ChatDestinations } from '../chat-destinations';
import { SlackResponseSender } from './slack-senders';
import { verifySlackSignature } from './slack-signature';
import { SlackApiError } from './slack-web-api';

export const SlackActionMessages = {
  notConfigured: 'Slack is not configured on this relay',
  badSignature: 'Invalid Slack signature',
  unknownUser: 'No member of this relay has the e-mail address of your Slack account',
  noEmail: 'Slack did not give the e-mail address of your account (the app needs the users:read.email scope)',
  inactive: 'Your account on this relay is deactivated',
  unknownAction: 'This button is not one of the relay\'s',
} as const;

type Verdict = 'approve' | 'request_changes' | 'reject';
const VERDICTS: Record<string, Verdict> = { [SLACK_ACTIONS.approve]: 'approve', [SLACK_ACTIONS.requestChanges]: 'request_changes', [SLACK_ACTIONS.reject]: 'reject' };
const DONE_WORDS: Record<Verdict, string> = { approve: 'approved', request_changes: 'requested changes to', reject: 'rejected' };

/** What the relay answers Slack (Slack reads only the status; the body says what happened, for people and tests). */
export interface SlackActionOutcome {
  outcome: 'applied' | 'refused' | 'ignored';
  reason?: string;
}

interface BlockActionsPayload {
  type?: string;
  user?: { id?: string };
  actions?: { action_id?: string; value?: string }[];
  response_url?: string;
}

/**
 * The Approve / Request changes / Reject buttons of a build's Slack message (docs/integrations.md
 * "Slack and Microsoft Teams"): the request is verified with Slack's signing secret, the Slack user
 * is matched to a member by e-mail (users.info), and the press does exactly what the member could
 * do through the API, through the same services and their rules (a Viewer cannot review; rejecting
 * may need a reason). Every press is audited; a refusal is answered in Slack with its reason.
 */
@Injectable()
export class SlackActionsService {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly destinations: ChatDestinations,
    private readonly users: UsersService,
    private readonly reviews: BuildReviewsService,
    private readonly statuses: BuildReviewService,
    private readonly responses: SlackResponseSender,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
  ) {}

  async receive(headers: Record<string, string | string[] | undefined>, raw: Buffer, clientAddress: string | null): Promise<SlackActionOutcome> {
    const secret = this.destinations.slack?.signingSecret;
    if (!secret) throw notFound(SlackActionMessages.notConfigured);
    if (!verifySlackSignature(secret, headers, raw, this.clock.nowMs())) throw unauthorized(SlackActionMessages.badSignature);
    const payload = parsePayload(raw);
    const action = payload?.actions?.[0];
    const verdict = action?.action_id ? VERDICTS[action.action_id] : undefined;
    const buildId = Number(action?.value);
    const slackUser = payload?.user?.id;
    // Another interaction (a shortcut, a view) or another app's button: nothing to do.
    if (payload?.type !== 'block_actions' || !verdict || !Number.isSafeInteger(buildId) || buildId < 1 || !slackUser) return { outcome: 'ignored' };
    // Only Slack's own response URL is ever posted to; any other is dropped, never fetched.
    const responseUrl = this.destinations.isSlackResponseUrl(payload.response_url) ? payload.response_url : null;

    const member = await this.memberOf(slackUser);
    let actor: AuditActor;
    let refusal: string | null;
    if ('user' in member) {
      const principal = principalOf(member.user, clientAddress);
      actor = actorOf(principal);
      refusal = await this.apply(principal, buildId, verdict);
    } else {
      actor = anonymousActor(`slack:${slackUser}`, clientAddress);
      refusal = member.refusal;
    }
    this.events.emit(
      AUDIT_EVENT,
      auditEvent(actor, 'slack.button_pressed', `build:${buildId}`, { action: verdict, slack_user: slackUser, outcome: refusal ? 'refused' : 'applied', reason: refusal }),
    );
    if (responseUrl) {
      const text = refusal ? `Not done: ${refusal}` : `You ${DONE_WORDS[verdict]} build #${buildId}.`;
      await this.responses.queue({ responseUrl, text }).catch((err: unknown) => this.logger.error(`Slack response not queued: ${(err as Error)?.stack ?? err}`));
    }
    return refusal ? { outcome: 'refused', reason: refusal } : { outcome: 'applied' };
  }

  private async memberOf(slackUser: string): Promise<{ user: UserEntity } | { refusal: string }> {
    const api = this.destinations.slackApi;
    if (!api) return { refusal: SlackActionMessages.notConfigured };
    let profile: { email: string | null; deleted: boolean };
    try {
      profile = await api.userEmail(slackUser);
    } catch (err) {
      if (err instanceof SlackApiError && err.error === 'user_not_found') return { refusal: SlackActionMessages.unknownUser };
      this.logger.warn(`Slack users.info of ${slackUser}: ${api.redact((err as Error)?.message ?? String(err))}`);
      return { refusal: SlackActionMessages.noEmail };
    }
    if (!profile.email || profile.deleted) return { refusal: profile.deleted ? SlackActionMessages.unknownUser : SlackActionMessages.noEmail };
    const user = await this.users.findByEmail(profile.email);
    if (!user) return { refusal: SlackActionMessages.unknownUser };
    if (!user.active) return { refusal: SlackActionMessages.inactive };
    return { user };
  }

  /** The same rules, in the same order, as POST /builds/:id/reviews and PATCH /builds/:id; the refusal's message, or null. */
  private async apply(principal: Principal, buildId: number, verdict: Verdict): Promise<string | null> {
    try {
      if (verdict === 'reject') {
        if (!WRITER_ROLES.includes(principal.role)) return ErrorMessages.viewerReadOnly;
        await this.statuses.update(buildId, { statusLabel: 'Rejected' }, principal);
      } else {
        if (!WRITER_ROLES.includes(principal.role)) return ReviewMessages.viewer;
        await this.reviews.review(principal, buildId, { verdict, comment: null });
      }
      return null;
    } catch (err) {
      if (err instanceof HttpError && err.getStatus() < 500) return err.message;
      throw err;
    }
  }
}

function parsePayload(raw: Buffer): BlockActionsPayload | null {
  const payload = new URLSearchParams(raw.toString('utf8')).get('payload');
  if (!payload) return null;
  try {
    const parsed = JSON.parse(payload) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as BlockActionsPayload) : null;
  } catch {
    return null;
  }
}

/** The member as a principal of their own, their role read now (as every API request reads it). */
function principalOf(user: UserEntity, clientAddress: string | null): Principal {
  return {
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    role: user.role,
    via: 'slack',
    sessionId: null,
    tokenId: null,
    expiresAt: null,
    scopes: [],
    clientAddress,
    viaMcp: false,
  };
}
