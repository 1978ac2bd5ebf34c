import { performance } from 'node:perf_hooks';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Registry } from 'prom-client';
import { EVENT_LOOP_SAMPLE_MS, EventLoopDelayWindow } from './event-loop-delay';
import { metricsOf } from './registered-metrics';

/** The quantiles exported, as Prometheus summaries label them; 1 is the maximum. */
const QUANTILES = [
  ['0.5', 'p50'],
  ['0.99', 'p99'],
  ['1', 'max'],
] as const;

/**
 * How late this process's event loop runs what is due, over the last minute, in every process
 * of every role. A worker whose loop is blocked longer than half its lock (WORKER_LOCK_SECONDS)
 * stops renewing it: the job is taken over by another worker while the first still runs it, and
 * a paid result runs twice. An API whose loop is blocked answers late, health checks included.
 *
 * Sampled by a timer every 10 ms (see EventLoopDelayWindow for what the quantiles mean); the
 * gauges are computed when scraped, so any number of scrapers read the same window. In an API
 * cluster each quantile is the maximum over the processes: the slowest loop is the one to see.
 */
@Injectable()
export class EventLoopMetrics implements OnModuleDestroy {
  private readonly window = new EventLoopDelayWindow();
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;

  constructor(registry: Registry) {
    const window = this.window;
    metricsOf(registry).gauge({
      name: 'imgjobs_event_loop_delay_seconds',
      help:
        'How late the event loop runs a timer that is due, over the last minute (50 to 60 s), ' +
        'by quantile over time: 0.5, 0.99 and 1 (the longest delay).',
      labelNames: ['quantile'],
      aggregator: 'max',
      collect() {
        const snapshot = window.snapshot(performance.now());
        for (const [quantile, key] of QUANTILES) this.set({ quantile }, snapshot[key]);
      },
    });
    this.schedule(performance.now());
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly tick = () => {
    const now = performance.now();
    this.window.record(Math.max(0, now - this.dueAt), now);
    this.schedule(now);
  };

  private schedule(now: number): void {
    this.dueAt = now + EVENT_LOOP_SAMPLE_MS;
    // Unreferenced: the sampling never keeps a process alive.
    this.timer = setTimeout(this.tick, EVENT_LOOP_SAMPLE_MS).unref();
  }
}
