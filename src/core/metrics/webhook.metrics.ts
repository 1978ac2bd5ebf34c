import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/** What one attempt came to: the attempt outcomes of `webhook_attempts`. */
export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'gone' | 'blocked';

/**
 * Webhook delivery: every recorded attempt with its latency, by outcome, and every delivery
 * that reached its final state (delivered, gone, blocked, or failed after the whole schedule).
 */
@Injectable()
export class WebhookMetrics {
  private readonly attemptDuration: Histogram<'outcome'>;
  private readonly finished: Counter<'outcome'>;

  constructor(registry: Registry) {
    const metric = metricsOf(registry);
    this.attemptDuration = metric.histogram({
      name: 'imgjobs_webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempts by outcome, and how long the receiver took to answer.',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    });
    this.finished = metric.counter({
      name: 'imgjobs_webhook_deliveries_total',
      help:
        'Webhook deliveries that reached a final state, by outcome; failed means every ' +
        'attempt of the schedule failed.',
      labelNames: ['outcome'],
    });
  }

  attempted(outcome: WebhookAttemptOutcome, seconds: number): void {
    this.attemptDuration.observe({ outcome }, seconds);
  }

  finishedDelivery(outcome: WebhookAttemptOutcome): void {
    this.finished.inc({ outcome });
  }
}
