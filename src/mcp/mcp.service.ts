import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { Server } from 'node:http';
import { RelayConfig } from '../config/relay-config';
import { loopbackBaseUrl } from './loopback';

/**
 * MCP over Streamable HTTP, stateless: each POST gets a fresh server and transport bound to the
 * caller's PAT, answered with plain JSON (no session, no SSE stream to keep). The tools call this
 * relay's own REST routes and device-session socket on the loopback with that PAT, so what a token
 * may do through MCP is by construction what it may do through REST. The MCP SDK (and zod) load on
 * the first MCP request, not at start-up (a fifth of the relay's start time; docs/decisions.md#item-9).
 */
@Injectable()
export class McpService {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: RelayConfig,
  ) {}

  async handle(req: Request, res: Response, token: string): Promise<void> {
    const [{ StreamableHTTPServerTransport }, { createRelayMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('./relay-tools'),
    ]);
    const server = createRelayMcpServer({ baseUrl: this.loopbackUrl(), token, loopbackTls: true });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  private loopbackUrl(): string {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    return loopbackBaseUrl(server.address(), !!(this.config.tlsCert && this.config.tlsKey));
  }
}
