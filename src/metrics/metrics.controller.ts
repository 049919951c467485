import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiFileResponse } from '../common/api/files';
import type { Response } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { notFound } from '../common/errors/http-error';
import { RelayConfig } from '../config/relay-config';
import { RelayMetrics } from './relay-metrics';

/**
 * GET /metrics at the relay root, for Prometheus. Public when enabled, like every scrape target
 * (docs/metrics.md says how to keep it private); 404 while SVC_METRICS is off or when it has a
 * port of its own (SVC_METRICS_PORT), so it is never on two listeners.
 */
@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: RelayMetrics,
    private readonly config: RelayConfig,
  ) {}

  @Get()
  @Auth({ public: true })
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format); only with SVC_METRICS=1 and no SVC_METRICS_PORT' })
  @ApiFileResponse(['text/plain'], 'the Prometheus text exposition format 0.0.4')
  @ApiErrors(404)
  async scrape(@Res() res: Response): Promise<void> {
    if (!this.config.metrics.enabled || this.config.metrics.port !== null) throw notFound();
    const { contentType, body } = await this.metrics.exposition();
    res.status(200).setHeader('Content-Type', contentType).setHeader('Cache-Control', 'no-store').end(body);
  }
}
