import { Body, Controller, Get, HttpCode, Injectable, Param, PipeTransform, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { notFound } from '../common/errors/http-error';
import { TestStatusDto, TestStatusResult } from './dto/test-status.dto';
import { ForgeDeliveryList, ForgeList, ForgeLog } from './forges.mapper';
import { FORGE_NOT_FOUND, ForgesService } from './forges.service';

/** `:index` of a forge: a plain non-negative integer; anything else names none (404). */
@Injectable()
class ParseForgeIndexPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^(0|[1-9]\d{0,5})$/.test(value)) throw notFound(FORGE_NOT_FOUND);
    return Number(value);
  }
}

/**
 * The forges (beyond the spec; docs/integrations.md): every member's build page reads them for its
 * links; the delivery logs and test statuses are an Admin's. svc.config.json forges are addressed
 * by their position (`/forges/config/:index/…`) and never changed here (the file is the
 * operator's); dashboard forges by id (DashboardForgesController).
 */
@ApiTags('forges')
@Controller('forges')
export class ForgesController {
  constructor(private readonly forges: ForgesService) {}

  @Get()
  @Auth({ cookie: true })
  @ApiOperation({ summary: 'The configured forges (no credentials): the build page links commits and pull requests with them' })
  @ApiOkResponse({ type: ForgeList })
  @ApiErrors(401)
  list(): ForgeList {
    return { forges: this.forges.list() };
  }

  @Get('deliveries')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: 'The delivery log: the newest 50 statuses queued for forges, newest first, with their attempts' })
  @ApiOkResponse({ type: ForgeDeliveryList })
  @ApiErrors(401, 403)
  async deliveries(): Promise<ForgeDeliveryList> {
    return { deliveries: await this.forges.deliveries() };
  }

  @Get('config/:index/deliveries')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: "A svc.config.json forge's delivery log: its newest 50 attempts, newest first, with the status each carried" })
  @ApiOkResponse({ type: ForgeLog })
  @ApiErrors(401, 403, 404)
  async log(@Param('index', ParseForgeIndexPipe) index: number): Promise<ForgeLog> {
    return { deliveries: await this.forges.log('config', index) };
  }

  @Post('config/:index/test')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({
    summary: "Post a test status (`<context>/test`, success) to a commit of one of a svc.config.json forge's repositories, once, and answer with the attempt",
    description: 'A forge not in use (unset token variable, unusable URL) or a repository it does not list is 400 naming why. The attempt is kept in the forge\'s delivery log.',
  })
  @ApiOkResponse({ type: TestStatusResult })
  @ApiErrors(400, 401, 403, 404)
  test(@Param('index', ParseForgeIndexPipe) index: number, @Body() dto: TestStatusDto): Promise<TestStatusResult> {
    return this.forges.sendTestStatus('config', index, dto.repository, dto.commit.toLowerCase());
  }
}
