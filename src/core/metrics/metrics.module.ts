import { Global, Module } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { CreditMetrics } from './credit.metrics';
import { EventLoopMetrics } from './event-loop.metrics';
import { HttpMetrics } from './http.metrics';
import { JobMetrics } from './job.metrics';
import { MetricsScraper } from './metrics-scraper';
import { QueueLockMetrics } from './queue-lock.metrics';
import { SegmentationMetrics } from './segmentation.metrics';
import { UploadMetrics } from './upload.metrics';
import { WebhookMetrics } from './webhook.metrics';

/**
 * One registry per application rather than prom-client's global one, so two applications in
 * one process (the tests' API and worker) each export their own series. Every process, of every
 * role, exports Node's default process metrics beside the service's own. Its event-loop delay is
 * the service's own metric (EventLoopMetrics): the defaults' `nodejs_eventloop_lag_*` gauges are
 * reset by every read of the registry and count a long block as one sample.
 */
function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

const METRICS = [
  HttpMetrics,
  JobMetrics,
  CreditMetrics,
  WebhookMetrics,
  SegmentationMetrics,
  UploadMetrics,
  QueueLockMetrics,
  EventLoopMetrics,
  MetricsScraper,
];

/** The service's Prometheus metrics; global, so any module records without importing it. */
@Global()
@Module({
  providers: [{ provide: Registry, useFactory: createRegistry }, ...METRICS],
  exports: [Registry, ...METRICS],
})
export class MetricsModule {}
