import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { bearerToken } from '../auth/authenticator.service';
import { ApiErrors, ErrorResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { HttpError } from '../common/errors/http-error';
import { McpService } from './mcp.service';

const NOT_STREAMING = 'This MCP endpoint is stateless: send JSON-RPC messages with POST';

/** The Model Context Protocol for AI agents and scripts (docs/mcp.md). PAT only: view or builds:write. */
@ApiTags('mcp')
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @HttpCode(200)
  @Auth({ cookie: false, pat: ['view', 'builds:write'] })
  @ApiOperation({
    summary: 'MCP Streamable HTTP endpoint (JSON-RPC 2.0)',
    description:
      'Model Context Protocol over Streamable HTTP, stateless, answering with application/json. Send ' +
      '`Accept: application/json, text/event-stream` (without it: 406 with a JSON-RPC error body). Tools: list_builds, get_build, list_devices, screenshot, ui_tree, ' +
      'tap, swipe, type_text, press_button, launch_app, install_build, start_recording, stop_recording, comment_on_build; each is allowed exactly ' +
      'when the REST route or device-session socket it calls is, for this PAT. See docs/mcp.md.',
  })
  @ApiBody({ schema: { type: 'object', description: 'a JSON-RPC 2.0 request, notification or batch' } })
  @ApiOkResponse({
    description: 'the JSON-RPC 2.0 response (a notification is answered 202 with no body)',
    schema: {
      type: 'object',
      properties: {
        jsonrpc: { type: 'string', enum: ['2.0'] },
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        result: { type: 'object', description: 'e.g. { tools: [...] } for tools/list, { content, isError } for tools/call' },
        error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } },
      },
    },
  })
  @ApiErrors(400, 401, 403)
  async post(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.mcp.handle(req, res, bearerToken(req)!);
  }

  @Get()
  @Auth({ cookie: false, pat: ['view', 'builds:write'] })
  @ApiOperation({ summary: 'No server-sent event stream: 405' })
  @ApiResponse({ status: 405, type: ErrorResponse })
  @ApiErrors(401, 403)
  stream(): never {
    throw new HttpError(405, NOT_STREAMING, { Allow: 'POST' });
  }

  @Delete()
  @Auth({ cookie: false, pat: ['view', 'builds:write'] })
  @ApiOperation({ summary: 'No sessions to end: 405' })
  @ApiResponse({ status: 405, type: ErrorResponse })
  @ApiErrors(401, 403)
  end(): never {
    throw new HttpError(405, NOT_STREAMING, { Allow: 'POST' });
  }
}
