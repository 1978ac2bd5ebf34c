import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/** Live or sandbox: sandbox results are simulated and say nothing about the tools' health. */
export type MetricsEnvironment = 'live' | 'sandbox';

/** How a result ended. */
export type SettledResultStatus = 'completed' | 'failed' | 'cancelled';

/**
 * The life of jobs and results: creates admitted and refused, results settled, and how long
 * results wait in their queue and take to process. Label values are tool ids, queue names,
 * statuses and error codes, never ids of jobs or accounts.
 */
@Injectable()
export class JobMetrics {
  private readonly created: Counter<'tool' | 'environment'>;
  private readonly refused: Counter<'tool' | 'reason'>;
  private readonly settled: Counter<'tool' | 'environment' | 'status' | 'error_code'>;
  private readonly waited: Histogram<'queue' | 'tool'>;
  private readonly processed: Histogram<'queue' | 'tool'>;
  private readonly steps: Histogram<'tool' | 'step'>;

  constructor(registry: Registry) {
    const metric = metricsOf(registry);
    this.created = metric.counter({
      name: 'imgjobs_jobs_created_total',
      help: 'Jobs created (committed), by tool and environment; idempotent replays are not counted.',
      labelNames: ['tool', 'environment'],
    });
    this.refused = metric.counter({
      name: 'imgjobs_job_admissions_refused_total',
      help: 'Creates refused by admission, by tool and reason (the error code the client got).',
      labelNames: ['tool', 'reason'],
    });
    this.settled = metric.counter({
      name: 'imgjobs_results_total',
      help: 'Results that reached a final status, by tool, environment, status and, for failures, error code.',
      labelNames: ['tool', 'environment', 'status', 'error_code'],
    });
    this.waited = metric.histogram({
      name: 'imgjobs_result_wait_seconds',
      help: 'Time a result waited in its queue, from enqueue (or the end of its delay) to its first attempt.',
      labelNames: ['queue', 'tool'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    });
    this.processed = metric.histogram({
      name: 'imgjobs_result_processing_seconds',
      help: 'Time one attempt of a result took to run its tool and store the image, whatever its outcome.',
      labelNames: ['queue', 'tool'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
    });
    this.steps = metric.histogram({
      name: 'imgjobs_result_step_seconds',
      help:
        "Time one attempt of a result spent in each of its steps: the database's start and completion, the source's " +
        "download, the tool's named pipeline steps, the files' storage.",
      labelNames: ['tool', 'step'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    });
  }

  jobCreated(tool: string, environment: MetricsEnvironment): void {
    this.created.inc({ tool, environment });
  }

  admissionRefused(tool: string, reason: string): void {
    this.refused.inc({ tool, reason });
  }

  resultsSettled(
    tool: string,
    environment: MetricsEnvironment,
    status: SettledResultStatus,
    count = 1,
    errorCode?: string,
  ): void {
    if (count <= 0) return;
    this.settled.inc(
      errorCode ? { tool, environment, status, error_code: errorCode } : { tool, environment, status },
      count,
    );
  }

  resultWaited(queue: string, tool: string, seconds: number): void {
    this.waited.observe({ queue, tool }, seconds);
  }

  resultProcessed(queue: string, tool: string, seconds: number): void {
    this.processed.observe({ queue, tool }, seconds);
  }

  /** One step of a result's attempt; `step` is a fixed name (a pipeline step's function name), never an id. */
  resultStep(tool: string, step: string, seconds: number): void {
    this.steps.observe({ tool, step }, seconds);
  }
}
