import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/**
 * MCP at /api/v1/mcp. It imports nothing: its tools reach builds, comments and devices through the
 * relay's own HTTP API, like `svc mcp` does from outside.
 */
@Module({
  controllers: [McpController],
  providers: [McpService],
})
export class McpModule {}
