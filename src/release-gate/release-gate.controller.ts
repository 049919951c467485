import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY, WRITER_ROLES } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest } from '../common/errors/http-error';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { BuildReviewsService, ReviewMessages } from './build-reviews.service';
import { CreateReviewDto, SavePolicyDto } from './dto/create-review.dto';
import { GatePoliciesService } from './gate-policies.service';
import {
  BuildGate,
  BuildReview,
  BuildReviewList,
  GatePolicyList,
  GateStateList,
  toAppPolicy,
  toBuildGate,
  toBuildReview,
  toPolicyItem,
} from './release-gate.mapper';
import type { GateState } from './release-gate.entities';
import { ReleaseGateService } from './release-gate.service';

const BuildId = () => Param('id', new ParseIdPipe(ErrorMessages.buildNotFound));
const GATE_FILTERS: GateState[] = ['pending', 'passed', 'failed'];

/** Reviews and the release gate of builds, and the gate's policies (beyond the spec; docs/release-gate.md). */
@ApiTags('release-gate')
@Controller()
export class ReleaseGateController {
  constructor(
    private readonly reviews: BuildReviewsService,
    private readonly gate: ReleaseGateService,
    private readonly policies: GatePoliciesService,
  ) {}

  @Get('builds/:id/reviews')
  @Auth({ cookie: true, pat: ['builds:write', 'view'] })
  @ApiOkResponse({ type: BuildReviewList })
  @ApiErrors(401, 403, 404)
  async listReviews(@BuildId() id: number): Promise<BuildReviewList> {
    return { reviews: (await this.reviews.list(id)).map(toBuildReview) };
  }

  @Post('builds/:id/reviews')
  @HttpCode(201)
  // Tokens are admitted to be told why not (the service refuses them): a review is a member's own word.
  @Auth({ cookie: true, pat: ['view', 'builds:write'], roles: WRITER_ROLES, roleRefusal: ReviewMessages.viewer })
  @ApiOperation({ summary: "Record the caller's review of a build (replaces their earlier one); Viewers and tokens cannot" })
  @ApiCreatedResponse({ type: BuildReview })
  @ApiErrors(400, 401, 403, 404)
  async review(@CurrentPrincipal() principal: Principal, @BuildId() id: number, @Body() body: CreateReviewDto): Promise<BuildReview> {
    return toBuildReview(await this.reviews.review(principal, id, { verdict: body.verdict, comment: body.comment ?? null }));
  }

  @Get('builds/:id/gate')
  @Auth({ cookie: true, pat: ['builds:write', 'view'] })
  @ApiOperation({ summary: "The build's release gate: its state and every rule of its policy, met or not, with evidence links" })
  @ApiOkResponse({ type: BuildGate })
  @ApiErrors(401, 403, 404)
  async buildGate(@BuildId() id: number): Promise<BuildGate> {
    return toBuildGate(await this.gate.refresh(id));
  }

  @Get('release-gate/states')
  @Auth({ cookie: true, pat: ['builds:write', 'view'] })
  @ApiOperation({ summary: 'Gate states of builds: of the ids given (the inbox rows), or the newest 200 in one state (the inbox filter)' })
  @ApiQuery({ name: 'ids', required: false, description: 'comma-separated build ids (at most 100)' })
  @ApiQuery({ name: 'state', required: false, enum: GATE_FILTERS })
  @ApiOkResponse({ type: GateStateList })
  @ApiErrors(400, 401, 403)
  async states(@Query('ids') ids?: string, @Query('state') state?: string): Promise<GateStateList> {
    if (state !== undefined) {
      if (!GATE_FILTERS.includes(state as GateState)) throw badRequest(`state must be one of: ${GATE_FILTERS.join(', ')}`);
      return { states: (await this.gate.buildsInState(state as GateState, 200)).map((buildId) => ({ build_id: buildId, state: state as GateState })) };
    }
    const list = (ids ?? '').split(',').filter(Boolean);
    if (list.length > 100 || list.some((v) => !/^[1-9]\d{0,14}$/.test(v))) throw badRequest('ids must be up to 100 comma-separated build ids');
    const states = await this.gate.statesOf(list.map(Number));
    return { states: [...states].map(([buildId, s]) => ({ build_id: buildId, state: s })) };
  }

  @Get('release-gate/policies')
  @Auth({ cookie: true })
  @ApiOperation({ summary: 'The team default and per-app policies, each saying whether it comes from svc.config.json (read-only) or the dashboard' })
  @ApiOkResponse({ type: GatePolicyList })
  @ApiErrors(401, 403)
  async listPolicies(): Promise<GatePolicyList> {
    const { default: team, apps } = await this.policies.list();
    return { default: team && toPolicyItem(team), apps: apps.map((a) => toAppPolicy(a.app, a.bundleId, a.entry)) };
  }

  @Put('release-gate/policies/default')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: 'Save (or, with null, remove) the team default; validated, errors name the rule; 409 when svc.config.json sets it' })
  @ApiOkResponse({ type: SavePolicyDto })
  @ApiErrors(400, 401, 403, 409)
  async saveDefault(@CurrentPrincipal() principal: Principal, @Body() body: SavePolicyDto): Promise<SavePolicyDto> {
    return { policy: (await this.policies.saveDefault(principal, policyOf(body))) as Record<string, unknown> | null };
  }

  @Put('release-gate/policies/apps/:id')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: "Save (or, with null, remove) an app's own policy; validated, errors name the rule; 409 when svc.config.json sets it" })
  @ApiOkResponse({ type: SavePolicyDto })
  @ApiErrors(400, 401, 403, 404, 409)
  async saveForApp(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) appId: number,
    @Body() body: SavePolicyDto,
  ): Promise<SavePolicyDto> {
    return { policy: (await this.policies.saveForApp(principal, appId, policyOf(body))) as Record<string, unknown> | null };
  }
}

function policyOf(body: SavePolicyDto): unknown | null {
  if (body.policy === undefined) throw badRequest('policy is required: the policy object, or null to remove it');
  return body.policy;
}
