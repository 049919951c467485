import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { RelayMetrics } from './relay-metrics';

/**
 * Prometheus metrics (docs/metrics.md), below every feature: the features that record import it and inject
 * RelayMetrics to record, and register the gauges of their own state; this module imports none of them.
 */
@Module({
  controllers: [MetricsController],
  providers: [RelayMetrics, MetricsServer],
  exports: [RelayMetrics],
})
export class MetricsModule {}
