import { hostname } from 'node:os';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import { APP_CONFIG } from '../../../core/config/config.module';
import { HealthService } from '../../../core/health/health.service';
import type { AppConfig } from '../../../core/config/config.schema';
import { QueueLockMetrics } from '../../../core/metrics/queue-lock.metrics';
import { JOB_QUEUES, QueueJobName, type QueuePayloads } from '../../../core/queue/queue-jobs';
import { modelQueueName } from '../../../core/queue/model-queues';
import { QueueName } from '../../../core/queue/queue-name';
import { SEGMENTATION_MODELS, type SegmentationModels } from '../../../core/segmentation/segmentation-models';
import { connectionSettled } from '../../../core/queue/connection-settled';
import { QUEUE_CONNECTION, type QueueConnection } from '../../../core/queue/queue-connection';
import { JobPostponed, QueueWorker } from '../../../core/queue/queue-worker';
import { WebhookDeliveryService } from '../../webhooks/worker/webhook-delivery.service';
import { UploadRetentionSweeperService } from '../../uploads/upload-retention-sweeper.service';
import { WebhookSweeperService } from '../../webhooks/worker/webhook-sweeper.service';
import { ResultRetentionSweeperService } from './result-retention-sweeper.service';
import { ResultSweeperService } from './result-sweeper.service';
import { drainSchedule } from './drain-schedule';
import { noteRepeatedAttempt, watchLocks } from './lock-watch';
import { codedFailure, ResultHandedBack, ResultWorkService, type ResultEntryData } from './result-work.service';

/**
 * How long a result's entry waited for its first attempt: from when it became ready (added, or
 * its delay over) to when a worker took it. Null for a later attempt, restarted after a stall too.
 */
export function firstAttemptWait(
  entry: Pick<Job, 'attemptsStarted' | 'timestamp' | 'processedOn' | 'opts'>,
): number | null {
  if (entry.attemptsStarted !== 1 || entry.processedOn === undefined) return null;
  return Math.max(0, entry.processedOn - entry.timestamp - (entry.opts.delay ?? 0)) / 1000;
}

type Handlers = {
  [Name in QueueJobName]: (job: Job<QueuePayloads[Name]>) => Promise<unknown>;
};

/** Periodic maintenance: one scheduler each, upserted by every worker (the same id is one schedule). */
const SWEEPS = [
  QueueJobName.SweepUnsettledResults,
  QueueJobName.SweepWebhookDeliveries,
  QueueJobName.SweepExpiredResultFiles,
] as const;

/**
 * Starts a BullMQ worker per queue this process consumes (WORKER_QUEUES). Workers are built
 * here rather than with `@Processor` because their concurrency, lock and stall settings and the
 * set of queues come from configuration at start. Only the worker module provides this class,
 * so an API process never consumes.
 *
 * On shutdown it drains (see `onModuleDestroy`): no job starts after the signal, running ones
 * finish, and results that cannot finish within the grace period are handed back to the queue.
 */
@Injectable()
export class QueueWorkersService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(QueueWorkersService.name);
  private readonly workers: QueueWorker[] = [];
  /** Stored on every job this process takes (BullMQ's `processedBy`), so Bull Board names the worker. */
  private readonly workerName = `${hostname()}:${process.pid}`;
  /** Set when the process starts to stop: a job taken after that is not started. */
  private stopping = false;
  /** Aborts when the results still running are to be handed back to the queue. */
  private readonly handBack = new AbortController();
  private handedBack = 0;
  private drained: Promise<void> | undefined;
  private scheduleKeeper: NodeJS.Timeout | undefined;
  /** While Redis is down a check can outlast the interval; the ticks meanwhile do not pile up behind it. */
  private checkingSweeps = false;
  /** Every job name has a handler: a missing one is a compile error, not a stuck queue. */
  private readonly handlers: Handlers = {
    [QueueJobName.ProcessResult]: (job) => this.performResult(job),
    [QueueJobName.SweepUnsettledResults]: () => this.sweeper.sweep(),
    [QueueJobName.DeliverWebhook]: (job) => this.webhooks.perform(job),
    [QueueJobName.SweepWebhookDeliveries]: () => this.webhookSweeper.sweep(),
    [QueueJobName.SweepExpiredResultFiles]: () => this.sweepExpiredFiles(),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly health: HealthService,
    @Inject(QUEUE_CONNECTION) private readonly queueConnection: QueueConnection,
    @InjectQueue(QueueName.Maintenance) private readonly maintenance: Queue,
    private readonly results: ResultWorkService,
    private readonly sweeper: ResultSweeperService,
    private readonly webhooks: WebhookDeliveryService,
    private readonly webhookSweeper: WebhookSweeperService,
    private readonly retentionSweeper: ResultRetentionSweeperService,
    private readonly uploadRetention: UploadRetentionSweeperService,
    private readonly lockMetrics: QueueLockMetrics,
    @Inject(SEGMENTATION_MODELS) private readonly models: SegmentationModels,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.health.whenDraining(() => {
      this.onModuleDestroy().catch((error: unknown) => this.logger.error({ err: error }, 'the drain failed'));
    });
    const queues = [...new Set(this.config.WORKER_QUEUES)] as QueueName[];
    for (const queue of queues) {
      const names = (Object.keys(JOB_QUEUES) as QueueJobName[]).filter((name) => JOB_QUEUES[name].includes(queue));
      if (names.length === 0) throw new Error(`WORKER_QUEUES names ${queue}, but this build has no processor for it`);
    }
    for (const queue of queues) this.workers.push(this.startWorker(queue, this.concurrencyOf(queue)));
    const modelQueues = this.servedModelQueues(queues);
    for (const queue of modelQueues) {
      this.workers.push(this.startWorker(queue, this.config.WORKER_CONCURRENCY_BACKGROUND_REMOVAL));
    }
    // Connected before the drain can begin, so the drain closes them at once (see connectionSettled).
    await Promise.all(this.workers.map((worker) => connectionSettled(worker)));
    if (queues.includes(QueueName.Maintenance)) {
      for (const sweep of SWEEPS) await this.scheduleSweep(sweep);
      // The schedules live only in Redis: a Redis that comes back empty (no persistence, a
      // failover to an empty replica) has none, and nothing else would recreate them before a
      // restart. Checking every interval bounds how long the sweeps stay missing.
      this.scheduleKeeper = setInterval(
        () => void this.restoreMissingSweeps(),
        this.config.SWEEP_INTERVAL_SECONDS * 1000,
      );
      this.scheduleKeeper.unref();
    }
    this.logger.log({ queues: [...queues, ...modelQueues] }, 'queue workers started');
  }

  /**
   * The worker's drain, in the first of Nest's shutdown hooks that reaches it: modules are
   * destroyed before the modules they import, so this runs, and ends, before the segmenter,
   * the upscaler, storage and the outbound agents release anything (their `onModuleDestroy`),
   * and before the pools and Redis close (`onApplicationShutdown`). Running work keeps every
   * resource it uses until it ends.
   *
   * Every worker stops fetching at once; running jobs finish until the schedule's hand-back
   * time (SHUTDOWN_GRACE_SECONDS less a reserve); results still running then are stopped and
   * handed back to the queue, where another worker takes them at once, without an attempt,
   * a failure, credits or a webhook counted; tool runs stopping are waited for a little more.
   */
  onModuleDestroy(): Promise<void> {
    this.drained ??= this.drain();
    return this.drained;
  }

  /** Begun at the shutdown signal (HealthService.startDraining) or, without one, when the app closes. */
  private async drain(): Promise<void> {
    const signalledAt = this.health.drainingSince ?? Date.now();
    this.stopping = true;
    clearInterval(this.scheduleKeeper);
    // `close` marks a worker closing before it returns, so no worker fetches another job from
    // here on; each resolves once its running jobs have ended, and only then stops renewing
    // their locks and closes its connections.
    const closed = Promise.all(this.workers.map((worker) => worker.close()));
    const schedule = drainSchedule(this.config.SHUTDOWN_GRACE_SECONDS);
    const handBackTimer = setTimeout(() => {
      this.logger.warn({ after_ms: schedule.handBackAfterMs }, 'handing back the results still running');
      this.handBack.abort(new Error('The worker is stopping.'));
    }, schedule.handBackAfterMs);
    try {
      await closed;
    } finally {
      clearTimeout(handBackTimer);
    }
    const stillRunning = await this.results.runsSettled(schedule.settleByMs - (Date.now() - signalledAt));
    if (stillRunning > 0) this.logger.warn({ runs: stillRunning }, 'tool runs had not stopped when the drain ended');
    this.logger.log({ handed_back: this.handedBack, ms: Date.now() - signalledAt }, 'queue workers drained');
  }

  private async scheduleSweep(sweep: (typeof SWEEPS)[number]): Promise<void> {
    await this.maintenance.upsertJobScheduler(
      sweep,
      { every: this.config.SWEEP_INTERVAL_SECONDS * 1000 },
      { name: sweep, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  /**
   * Recreates a sweep schedule that Redis lost. Only a missing one is upserted: upserting a
   * live schedule would be harmless but costs a script run per worker per interval. While
   * Redis is unreachable this fails and the next tick tries again.
   */
  private async restoreMissingSweeps(): Promise<void> {
    if (this.checkingSweeps) return;
    this.checkingSweeps = true;
    try {
      for (const sweep of SWEEPS) {
        try {
          if (await this.maintenance.getJobScheduler(sweep)) continue;
          await this.scheduleSweep(sweep);
          this.logger.warn({ scheduler: sweep }, 'sweep schedule was missing from Redis; restored');
        } catch (error) {
          this.logger.warn(
            { err: error, scheduler: sweep },
            'could not check the sweep schedule; retrying next interval',
          );
        }
      }
    } finally {
      this.checkingSweeps = false;
    }
  }

  /**
   * The queues of the models this worker serves besides the default, which a worker taking cut-outs
   * (background-removal) consumes too. (The configuration makes such a worker serve the default
   * model as well: the tools' queues carry every result that names no model.)
   */
  private servedModelQueues(queues: readonly QueueName[]): string[] {
    const { defaultModel, served } = this.models;
    if (!queues.includes(QueueName.BackgroundRemoval)) return [];
    return served.filter((name) => name !== defaultModel.name).map(modelQueueName);
  }

  private startWorker(queue: string, concurrency: number): QueueWorker {
    const worker: QueueWorker = new QueueWorker(queue, (job, token) => this.dispatch(worker, job, token), {
      ...this.queueConnection,
      name: this.workerName,
      concurrency,
      lockDuration: this.config.WORKER_LOCK_SECONDS * 1000,
      stalledInterval: this.config.WORKER_STALLED_CHECK_SECONDS * 1000,
      maxStalledCount: this.config.WORKER_MAX_STALLED,
    });
    worker.on('failed', (job, error) => void this.onFailed(job, error));
    worker.on('error', (error) => this.logger.error({ err: error, queue }, 'queue worker error'));
    watchLocks(worker, queue, this.lockMetrics, this.logger);
    return worker;
  }

  /** Runs a job's handler; a job the handler postpones or hands back is moved by its worker. */
  private async dispatch(worker: QueueWorker, job: Job, token: string | undefined): Promise<unknown> {
    // Fetched as the worker began to stop (the fetch was under way): not started, given back.
    if (this.stopping) return this.giveBack(worker, job, token);
    const handler = this.handlers[job.name as QueueJobName] as ((job: Job) => Promise<unknown>) | undefined;
    if (!handler) throw new UnrecoverableError(`No processor for job name "${job.name}"`);
    try {
      return await handler(job);
    } catch (error) {
      if (error instanceof JobPostponed) return worker.postpone(job, token, error.waitMs);
      if (error instanceof ResultHandedBack) return this.giveBack(worker, job, token);
      throw error;
    }
  }

  /** The retention sweep: result files past RESULT_RETENTION_DAYS, then uploads past their expiry. */
  private async sweepExpiredFiles(): Promise<{ results: { expired: number; failed: number }; uploads: number }> {
    const results = await this.retentionSweeper.sweep();
    const { deleted } = await this.uploadRetention.sweep();
    return { results, uploads: deleted };
  }

  /**
   * One attempt of a result. A failed attempt's code is kept on its queue entry before BullMQ
   * records the failure, so a later settlement from the entry (the sweeper's) keeps that code.
   * An attempt that is not the entry's first start is counted, with why. A result handed back
   * (the drain) is rethrown for `dispatch` to put back in its queue.
   */
  private async performResult(job: Job<ResultEntryData>): Promise<void> {
    noteRepeatedAttempt(job, this.lockMetrics, this.logger);
    try {
      await this.results.perform(
        job.data.resultId,
        { queue: job.queueName, waitedSeconds: firstAttemptWait(job) },
        this.handBack.signal,
      );
    } catch (error) {
      if (error instanceof ResultHandedBack) {
        this.handedBack++;
        throw error;
      }
      await job
        .updateData({ resultId: job.data.resultId, failure: codedFailure(error) })
        .catch((recordError: unknown) => {
          this.logger.warn(
            { err: recordError, job_id: job.id },
            'could not record the failure code on the queue entry',
          );
        });
      throw error;
    }
  }

  /**
   * Puts a job this worker holds back at the head of its queue, so another worker takes it at
   * once, not once the lock lapses (see QueueWorker.handBack).
   */
  private giveBack(worker: QueueWorker, job: Job, token: string | undefined): Promise<never> {
    return worker.handBack(job, token, (error) => {
      this.logger.warn(
        { err: error, job_id: job.id },
        'could not hand a job back; it is taken over once its lock lapses',
      );
    });
  }

  /** A result is failed, and its credits released, only after its last attempt. */
  private async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || job.name !== (QueueJobName.ProcessResult as string)) return;
    try {
      if ((await job.getState()) !== 'failed') return;
      await this.results.settleFailure((job.data as QueuePayloads[QueueJobName.ProcessResult]).resultId, error);
    } catch (settleError) {
      // The sweeper settles it later from the failed queue entry.
      this.logger.error({ err: settleError, job_id: job.id }, 'could not settle a failed result');
    }
  }

  private concurrencyOf(queue: QueueName): number {
    switch (queue) {
      case QueueName.BackgroundRemoval:
        return this.config.WORKER_CONCURRENCY_BACKGROUND_REMOVAL;
      case QueueName.Processing:
        return this.config.WORKER_CONCURRENCY_PROCESSING;
      case QueueName.Sandbox:
        return this.config.WORKER_CONCURRENCY_SANDBOX;
      case QueueName.WebhookDelivery:
        return this.config.WORKER_CONCURRENCY_WEBHOOKS;
      case QueueName.Maintenance:
        return 1;
    }
  }
}
