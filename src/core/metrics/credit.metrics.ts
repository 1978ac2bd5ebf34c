import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/**
 * Credits moved by jobs, counted once their transaction has committed: reserved at creation,
 * then captured (spent) or released (given back) as each result settles. Reserved minus
 * captured minus released is what unsettled results still hold.
 */
@Injectable()
export class CreditMetrics {
  private readonly reservedCredits: Counter;
  private readonly capturedCredits: Counter;
  private readonly releasedCredits: Counter;

  constructor(registry: Registry) {
    const metric = metricsOf(registry);
    this.reservedCredits = metric.counter({
      name: 'imgjobs_credits_reserved_total',
      help: 'Credits reserved by live jobs at creation.',
    });
    this.capturedCredits = metric.counter({
      name: 'imgjobs_credits_captured_total',
      help: 'Reserved credits spent by completed results.',
    });
    this.releasedCredits = metric.counter({
      name: 'imgjobs_credits_released_total',
      help: 'Reserved credits given back by failed or cancelled results.',
    });
  }

  reserved(credits: number): void {
    this.reservedCredits.inc(credits);
  }

  captured(credits: number): void {
    this.capturedCredits.inc(credits);
  }

  released(credits: number): void {
    this.releasedCredits.inc(credits);
  }
}
