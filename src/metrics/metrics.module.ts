import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { RelayMetrics } from './relay-metrics';

/**
 * Prometheus metrics (docs/metrics.md). Global and below every feature: features inject
 * RelayMetrics to record, and register the gauges of their own state; this module imports none of them.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [RelayMetrics, MetricsServer],
  exports: [RelayMetrics],
})
export class MetricsModule {}
