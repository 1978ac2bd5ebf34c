import { EventEmitter } from 'node:events';
import type { Logger } from '@nestjs/common';
import { ErrorCode, type Job, type Worker } from 'bullmq';
import { Registry } from 'prom-client';
import { QueueLockMetrics } from '../../../core/metrics/queue-lock.metrics';
import { QueueName } from '../../../core/queue/queue-name';
import { finishLockError, noteRepeatedAttempt, repeatedAttemptReason, watchLocks } from './lock-watch';
import type { ResultEntryData } from './result-work.service';

/** An error as BullMQ's scripts throw it when a command is refused (Scripts.finishedErrors). */
const bullmqError = (code: ErrorCode, message: string) => Object.assign(new Error(message), { code });

const fakeLogger = () => ({ warn: jest.fn(), log: jest.fn(), error: jest.fn() });

async function valueOf(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  const sample = metric?.values.find((value) =>
    Object.entries(labels).every(([label, expected]) => value.labels[label] === expected),
  );
  return sample?.value ?? NaN;
}

describe(finishLockError.name, () => {
  it("names the lock an outcome was refused for, from BullMQ's error code", () => {
    expect(finishLockError(bullmqError(ErrorCode.JobLockMismatch, 'Lock mismatch for job 7. Cmd moveToFinished'))).toBe(
      'lock_mismatch',
    );
    expect(finishLockError(bullmqError(ErrorCode.JobLockNotExist, 'Missing lock for job 7. moveToDelayed'))).toBe(
      'lock_missing',
    );
  });

  it('ignores every other error', () => {
    expect(finishLockError(bullmqError(ErrorCode.JobNotExist, 'Missing key for job 7. moveToFinished'))).toBeNull();
    expect(finishLockError(new Error('could not renew lock for job 7'))).toBeNull();
    expect(finishLockError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeNull();
    expect(finishLockError(undefined)).toBeNull();
  });
});

describe(repeatedAttemptReason.name, () => {
  const entry = (attemptsStarted: number, attemptsMade: number, stalledCounter: number) => ({
    attemptsStarted,
    attemptsMade,
    stalledCounter,
  });

  it('is null on the first start', () => {
    expect(repeatedAttemptReason(entry(1, 0, 0))).toBeNull();
    expect(repeatedAttemptReason(entry(0, 0, 0))).toBeNull();
  });

  it('puts a stall first, whatever else happened to the entry', () => {
    expect(repeatedAttemptReason(entry(2, 0, 1))).toBe('stalled');
    expect(repeatedAttemptReason(entry(3, 1, 1))).toBe('stalled');
  });

  it('tells a retry after a failed attempt from a start handed back by a stopping worker', () => {
    expect(repeatedAttemptReason(entry(2, 1, 0))).toBe('retried');
    expect(repeatedAttemptReason(entry(2, 0, 0))).toBe('handed_back');
  });
});

describe(watchLocks.name, () => {
  let registry: Registry;
  let metrics: QueueLockMetrics;
  let worker: EventEmitter;
  let logger: ReturnType<typeof fakeLogger>;
  const count = (name: string, labels: Record<string, string> = {}) =>
    valueOf(registry, name, { queue: 'processing', ...labels });

  beforeEach(() => {
    registry = new Registry();
    metrics = new QueueLockMetrics(registry);
    worker = new EventEmitter();
    logger = fakeLogger();
    watchLocks(worker as unknown as Worker, QueueName.Processing, metrics, logger as unknown as Logger);
  });

  it("creates the queue's series at 0, repeated attempts too for a result queue", async () => {
    expect(await count('imgjobs_queue_lock_renewal_failures_total')).toBe(0);
    expect(await count('imgjobs_result_attempts_repeated_total', { reason: 'stalled' })).toBe(0);
    watchLocks(new EventEmitter() as unknown as Worker, QueueName.Maintenance, metrics, logger as unknown as Logger);
    expect(await valueOf(registry, 'imgjobs_queue_stalled_total', { queue: 'maintenance' })).toBe(0);
    expect(await valueOf(registry, 'imgjobs_result_attempts_repeated_total', { queue: 'maintenance' })).toBeNaN();
  });

  it('counts every job whose lock renewal failed', async () => {
    worker.emit('lockRenewalFailed', ['1', '2']);
    worker.emit('lockRenewalFailed', ['1']);
    expect(await count('imgjobs_queue_lock_renewal_failures_total')).toBe(3);
  });

  it('counts and logs a job the stalled check gave back to the queue', async () => {
    worker.emit('stalled', '42', 'active');
    expect(await count('imgjobs_queue_stalled_total')).toBe(1);
    expect(logger.warn).toHaveBeenCalledWith(
      { job_id: '42', queue: 'processing' },
      expect.stringMatching(/lost its lock/),
    );
  });

  it('counts outcomes refused for a lost lock among the errors the worker reports, and nothing else', async () => {
    worker.emit('error', bullmqError(ErrorCode.JobLockNotExist, 'Missing lock for job 42. moveToFinished'));
    worker.emit('error', bullmqError(ErrorCode.JobLockNotExist, 'Missing lock for job 42. moveToDelayed'));
    worker.emit('error', bullmqError(ErrorCode.JobLockMismatch, 'Lock mismatch for job 43. Cmd retryJob from active'));
    // Reported beside lockRenewalFailed, which counted it already.
    worker.emit('error', new Error('could not renew lock for job 42'));
    worker.emit('error', new Error('Connection is closed.'));
    expect(await count('imgjobs_queue_finish_lock_errors_total', { reason: 'lock_missing' })).toBe(2);
    expect(await count('imgjobs_queue_finish_lock_errors_total', { reason: 'lock_mismatch' })).toBe(1);
    expect(await count('imgjobs_queue_lock_renewal_failures_total')).toBe(0);
  });
});

describe(noteRepeatedAttempt.name, () => {
  const job = (attemptsStarted: number, attemptsMade: number, stalledCounter: number) =>
    ({
      id: 'result-7',
      queueName: 'processing',
      data: { resultId: 'result-7' },
      attemptsStarted,
      attemptsMade,
      stalledCounter,
    }) as Job<ResultEntryData>;

  it('counts nothing and says nothing on a first start', async () => {
    const registry = new Registry();
    const logger = fakeLogger();
    noteRepeatedAttempt(job(1, 0, 0), new QueueLockMetrics(registry), logger as unknown as Logger);
    expect(await registry.metrics()).not.toMatch(/^imgjobs_result_attempts_repeated_total/m);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.log).not.toHaveBeenCalled();
  });

  it('counts a takeover after a stall and warns, naming the job, its result and why', async () => {
    const registry = new Registry();
    const logger = fakeLogger();
    noteRepeatedAttempt(job(2, 0, 1), new QueueLockMetrics(registry), logger as unknown as Logger);
    expect(
      await valueOf(registry, 'imgjobs_result_attempts_repeated_total', { queue: 'processing', reason: 'stalled' }),
    ).toBe(1);
    expect(logger.warn).toHaveBeenCalledWith(
      {
        job_id: 'result-7',
        result_id: 'result-7',
        queue: 'processing',
        reason: 'stalled',
        attempts_started: 2,
        attempts_made: 0,
        stalled_count: 1,
      },
      expect.stringMatching(/lock lapsed.*may run twice/),
    );
  });

  it('counts a retry and a hand-back with a plain log line: no work was done twice', async () => {
    const registry = new Registry();
    const metrics = new QueueLockMetrics(registry);
    const logger = fakeLogger();
    noteRepeatedAttempt(job(2, 1, 0), metrics, logger as unknown as Logger);
    noteRepeatedAttempt(job(2, 0, 0), metrics, logger as unknown as Logger);
    const repeated = (reason: string) =>
      valueOf(registry, 'imgjobs_result_attempts_repeated_total', { queue: 'processing', reason });
    expect([await repeated('retried'), await repeated('handed_back')]).toEqual([1, 1]);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.log).toHaveBeenCalledWith(
      expect.objectContaining({ reason: 'retried' }),
      'result started again (retried)',
    );
    expect(logger.log).toHaveBeenCalledWith(
      expect.objectContaining({ reason: 'handed_back' }),
      'result started again (handed back)',
    );
  });
});
