import type { Logger } from '@nestjs/common';
import { ErrorCode, type Job, type Worker } from 'bullmq';
import { JOB_QUEUES, QueueJobName } from '../../../core/queue/queue-jobs';
import { isModelQueue } from '../../../core/queue/model-queues';
import type {
  FinishLockError,
  QueueLockMetrics,
  RepeatedAttemptReason,
} from '../../../core/metrics/queue-lock.metrics';
import type { ResultEntryData } from './result-work.service';

/**
 * Which lock a coded BullMQ error says the worker lost. In a worker's `error` events these
 * codes come from the commands that record how an attempt ended (moveToFinished for complete or
 * fail, moveToDelayed and retryJob for a retry), which check the lock's token first.
 */
export function finishLockError(error: unknown): FinishLockError | null {
  switch ((error as { code?: unknown } | null)?.code) {
    case ErrorCode.JobLockMismatch:
      return 'lock_mismatch';
    case ErrorCode.JobLockNotExist:
      return 'lock_missing';
    default:
      return null;
  }
}

/** Whether a queue carries results: the tools' queues, and every model's (`background-removal.<model>`). */
function carriesResults(queue: string): boolean {
  const resultQueues: readonly string[] = JOB_QUEUES[QueueJobName.ProcessResult];
  return resultQueues.includes(queue) || isModelQueue(queue);
}

/**
 * Counts what a queue's worker reports about its locks: renewals it could not make (its event
 * loop was blocked past the lock, or the job was taken over), jobs its stalled check gave back
 * to the queue, and outcomes refused because the lock was lost by then.
 */
export function watchLocks(worker: Worker, queue: string, metrics: QueueLockMetrics, logger: Logger): void {
  metrics.watchQueue(queue);
  if (carriesResults(queue)) metrics.watchResultQueue(queue);
  worker.on('lockRenewalFailed', (jobIds) => metrics.lockRenewalsFailed(queue, jobIds.length));
  worker.on('stalled', (jobId) => {
    metrics.jobStalled(queue);
    logger.warn({ job_id: jobId, queue }, 'a job lost its lock and went back to the queue for another worker');
  });
  worker.on('error', (error) => {
    const lost = finishLockError(error);
    if (lost) metrics.finishRefused(queue, lost);
  });
}

/**
 * Why a result's queue entry starts again, from BullMQ's counters on it (`attemptsStarted` goes
 * up on every start: a retry, a takeover after a stall, a hand-back); null on its first start.
 * A stall counts first: whatever else happened to the entry, a run that lost its lock may have
 * gone on beside this one.
 */
export function repeatedAttemptReason(
  entry: Pick<Job, 'attemptsStarted' | 'attemptsMade' | 'stalledCounter'>,
): RepeatedAttemptReason | null {
  if (entry.attemptsStarted <= 1) return null;
  if (entry.stalledCounter > 0) return 'stalled';
  if (entry.attemptsMade > 0) return 'retried';
  return 'handed_back';
}

/**
 * Counts a result attempt that is not its entry's first start, and says why in the log: a
 * warning when the entry was taken over after a stall (the run that lost the lock may still be
 * running the tool, paid work done twice), a plain line for a retry or a hand-back.
 */
export function noteRepeatedAttempt(job: Job<ResultEntryData>, metrics: QueueLockMetrics, logger: Logger): void {
  const reason = repeatedAttemptReason(job);
  if (!reason) return;
  metrics.attemptRepeated(job.queueName, reason);
  const fields = {
    job_id: job.id,
    result_id: job.data.resultId,
    queue: job.queueName,
    reason,
    attempts_started: job.attemptsStarted,
    attempts_made: job.attemptsMade,
    stalled_count: job.stalledCounter,
  };
  if (reason === 'stalled') {
    logger.warn(
      fields,
      'result started again after its lock lapsed: an earlier run may still be going, and the tool may run twice',
    );
  } else {
    logger.log(fields, `result started again (${reason.replace('_', ' ')})`);
  }
}
