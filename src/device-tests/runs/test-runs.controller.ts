import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiMultipartBody, binaryFile } from '../../common/api/files';
import { ApiErrors } from '../../common/api/responses';
import { Auth } from '../../common/auth/auth.decorator';
import type { Principal } from '../../common/auth/principal';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import { WRITER_ROLES } from '../../common/auth/role';
import { ErrorMessages } from '../../common/errors/error-messages';
import { ParseIdPipe } from '../../common/validation/parse-id.pipe';
import { TestRun, TestRunList } from './test-runs.mapper';
import { TestRunsService } from './test-runs.service';

const BuildId = () => Param('id', new ParseIdPipe(ErrorMessages.buildNotFound));

/** A build's test runs: JUnit reports from CI and the hub sessions of each run (beyond the spec; docs/device-tests.md "Results"). */
@ApiTags('device-tests')
@Controller('builds/:id/test-runs')
export class TestRunsController {
  constructor(private readonly runs: TestRunsService) {}

  @Get()
  @Auth({ cookie: true, pat: ['view', 'builds:write', 'devices'] })
  @ApiOperation({ summary: "The build's test runs: their hub sessions, per-test results and the sessions' recordings" })
  @ApiOkResponse({ type: TestRunList })
  @ApiErrors(401, 403, 404)
  async list(@BuildId() id: number): Promise<TestRunList> {
    return { runs: await this.runs.list(id) };
  }

  @Post()
  @HttpCode(201)
  @Auth({ cookie: true, pat: ['builds:write', 'devices'], roles: WRITER_ROLES })
  @ApiOperation({
    summary:
      'Upload a JUnit XML report as a run of the build (the body as application/xml, or multipart with the file in `file`); ' +
      'a report under a run name already used replaces that run\'s results',
  })
  @ApiMultipartBody({ file: binaryFile('the JUnit XML report (at most 5 MiB)'), name: { type: 'string', maxLength: 200, description: "the run's name" } }, ['file'])
  @ApiQuery({ name: 'name', required: false, description: "the run's name (else the multipart field `name`, the report's <testsuites name>, or `default`)" })
  @ApiCreatedResponse({ type: TestRun })
  @ApiErrors(400, 401, 403, 404, 413)
  upload(@CurrentPrincipal() principal: Principal, @BuildId() id: number, @Req() req: Request): Promise<TestRun> {
    return this.runs.upload(id, req, principal.userId);
  }
}
