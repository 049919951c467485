import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController, ApiOperation } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth } from '../../common/auth/auth.decorator';
import type { Principal } from '../../common/auth/principal';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import { WRITER_ROLES } from '../../common/auth/role';
import { HubSessionsService, WebDriverAnswer } from './hub-sessions.service';
import { W3CErrorFilter } from './w3c-error';

/** Both base paths clients use: Selenium's `/wd/hub` and Appium 2's `/`. */
const NEW_SESSION = ['wd/hub/session', 'session'];
const COMMAND = ['wd/hub/session/:id', 'session/:id', 'wd/hub/session/:id/*path', 'session/:id/*path'];
/** PAT with the devices scope, as Bearer or as the password of HTTP Basic; never a Viewer (docs/device-tests.md). */
const HUB_ACCESS = { cookie: false, pat: 'devices', basic: true, roles: WRITER_ROLES, roleRefusal: 'Viewers cannot run device sessions' } as const;
/**
 * A session's commands carry no credential: WebDriver clients send theirs with New Session only
 * (WebdriverIO, Selenium), as Selenium Grid and the device clouds expect. The session id Appium
 * made (a random UUID) is the key, as there (docs/decisions.md "hub commands by session id").
 */
const COMMAND_ACCESS = { public: true } as const;

/**
 * The W3C WebDriver endpoint (docs/device-tests.md): a new session, then every command of it,
 * answered as the device's Appium server answered (status and body), errors in WebDriver's shape.
 */
// W3C WebDriver, not this REST API's conventions ({ error }, 204 deletes): documented in docs/device-tests.md, not the OpenAPI document.
@ApiExcludeController()
@Controller()
@UseFilters(W3CErrorFilter)
export class WebDriverController {
  constructor(private readonly hub: HubSessionsService) {}

  @Post(NEW_SESSION)
  @HttpCode(200)
  @Auth(HUB_ACCESS)
  @ApiOperation({ summary: 'W3C New Session: takes a matching device, installs svc:build, opens the Appium session on it' })
  async create(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    send(res, await this.hub.create(principal, req.body, gone.signal));
  }

  @Get(COMMAND)
  @Auth(COMMAND_ACCESS)
  @ApiOperation({ summary: 'a W3C WebDriver command of a hub session, forwarded to the device’s Appium server' })
  get(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.forward(id, 'GET', req, res);
  }

  @Post(COMMAND)
  @HttpCode(200)
  @Auth(COMMAND_ACCESS)
  @ApiOperation({ summary: 'a W3C WebDriver command of a hub session, forwarded to the device’s Appium server' })
  post(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.forward(id, 'POST', req, res);
  }

  @Delete(COMMAND)
  @Auth(COMMAND_ACCESS)
  @ApiOperation({ summary: 'a W3C WebDriver command of a hub session (DELETE /session/:id ends it and frees the device)' })
  delete(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.forward(id, 'DELETE', req, res);
  }

  private async forward(id: string, method: 'GET' | 'POST' | 'DELETE', req: Request, res: Response): Promise<void> {
    const path = req.path.replace(/^\/wd\/hub/, '');
    const gone = new AbortController();
    res.once('close', () => res.writableFinished || gone.abort());
    send(res, await this.hub.command(id, method, path, req.body ?? {}, gone.signal));
  }
}

/** Written as it is: no ETag or freshness check (res.send's), which no WebDriver client asks for, on every command. */
function send(res: Response, answer: WebDriverAnswer): void {
  const json = JSON.stringify(answer.body);
  res.status(answer.status).set({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(json)) });
  res.end(json);
}
