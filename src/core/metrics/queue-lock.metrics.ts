import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/**
 * Why BullMQ refused to record how an attempt ended (completed, failed, retried): the worker no
 * longer held the job's lock. `lock_mismatch`: another worker holds it, having taken the job
 * over. `lock_missing`: it lapsed and nobody holds it yet.
 */
export const FINISH_LOCK_ERRORS = ['lock_mismatch', 'lock_missing'] as const;
export type FinishLockError = (typeof FINISH_LOCK_ERRORS)[number];

/**
 * Why a result's queue entry started more than once, from BullMQ's counters on the entry.
 * `stalled`: it was taken over at least once after its lock lapsed (stalledCounter > 0): the run
 * that lost the lock may have gone on, so the tool may have run twice. `retried`: an earlier
 * attempt failed and this is BullMQ's retry (attemptsMade > 0). `handed_back`: an earlier start
 * was handed back unfinished by a stopping worker, which counts no attempt.
 */
export const REPEATED_ATTEMPT_REASONS = ['stalled', 'retried', 'handed_back'] as const;
export type RepeatedAttemptReason = (typeof REPEATED_ATTEMPT_REASONS)[number];

/**
 * What BullMQ's workers report about their jobs' locks, and results started more than once: the
 * signs of a worker too busy to renew its locks (its event loop blocked), whose work another
 * worker then takes over and runs again. Counted by the process that saw it; every series is
 * created at 0 for the queues a worker consumes, so `increase()` sees the first one.
 */
@Injectable()
export class QueueLockMetrics {
  private readonly renewalFailures: Counter<'queue'>;
  private readonly stalledJobs: Counter<'queue'>;
  private readonly finishLockErrors: Counter<'queue' | 'reason'>;
  private readonly repeatedAttempts: Counter<'queue' | 'reason'>;

  constructor(registry: Registry) {
    const metric = metricsOf(registry);
    this.renewalFailures = metric.counter({
      name: 'imgjobs_queue_lock_renewal_failures_total',
      help:
        "Lock renewals a worker could not make, by queue: one per job and renewal round. The job's lock " +
        'had lapsed (its event loop was blocked too long) or another worker had taken the job over.',
      labelNames: ['queue'],
    });
    this.stalledJobs = metric.counter({
      name: 'imgjobs_queue_stalled_total',
      help:
        "Jobs whose lock lapsed and that this worker's stalled check gave back to the queue (or failed, " +
        'past WORKER_MAX_STALLED), by queue: their worker crashed or was blocked.',
      labelNames: ['queue'],
    });
    this.finishLockErrors = metric.counter({
      name: 'imgjobs_queue_finish_lock_errors_total',
      help:
        'Attempt outcomes (complete, fail, retry) BullMQ refused to record because the worker had lost ' +
        "the job's lock, by queue and reason (lock_mismatch: another worker holds it; lock_missing: it lapsed).",
      labelNames: ['queue', 'reason'],
    });
    this.repeatedAttempts = metric.counter({
      name: 'imgjobs_result_attempts_repeated_total',
      help:
        "Result attempts that are not their queue entry's first start, by queue and reason (stalled: taken " +
        'over after a lapsed lock, the tool may have run twice; retried: after a failed attempt; ' +
        'handed_back: after a stopping worker gave it back).',
      labelNames: ['queue', 'reason'],
    });
  }

  /** Creates this queue's lock series at 0, for a worker that consumes it. */
  watchQueue(queue: string): void {
    this.renewalFailures.inc({ queue }, 0);
    this.stalledJobs.inc({ queue }, 0);
    for (const reason of FINISH_LOCK_ERRORS) this.finishLockErrors.inc({ queue, reason }, 0);
  }

  /** Creates this result queue's repeated-attempt series at 0, for a worker that consumes it. */
  watchResultQueue(queue: string): void {
    for (const reason of REPEATED_ATTEMPT_REASONS) this.repeatedAttempts.inc({ queue, reason }, 0);
  }

  lockRenewalsFailed(queue: string, jobs: number): void {
    if (jobs > 0) this.renewalFailures.inc({ queue }, jobs);
  }

  jobStalled(queue: string): void {
    this.stalledJobs.inc({ queue });
  }

  finishRefused(queue: string, reason: FinishLockError): void {
    this.finishLockErrors.inc({ queue, reason });
  }

  attemptRepeated(queue: string, reason: RepeatedAttemptReason): void {
    this.repeatedAttempts.inc({ queue, reason });
  }
}
