import { InjectQueue } from '@nestjs/bullmq';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { JOB_QUEUES, QueueJobName, type QueuePayloads } from '../../../core/queue/queue-jobs';
import { QueueName } from '../../../core/queue/queue-name';
import { QUEUE_CONNECTION, type QueueConnection } from '../../../core/queue/queue.module';
import { WebhookDeliveryService } from '../../webhooks/worker/webhook-delivery.service';
import { UploadRetentionSweeperService } from '../../uploads/upload-retention-sweeper.service';
import { WebhookSweeperService } from '../../webhooks/worker/webhook-sweeper.service';
import { ResultRetentionSweeperService } from './result-retention-sweeper.service';
import { ResultSweeperService } from './result-sweeper.service';
import { codedFailure, ResultWorkService, type ResultEntryData } from './result-work.service';

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
  [Name in QueueJobName]: (job: Job<QueuePayloads[Name]>, token: string | undefined) => Promise<unknown>;
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
 */
@Injectable()
export class QueueWorkersService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkersService.name);
  private readonly workers: Worker[] = [];
  private scheduleKeeper: NodeJS.Timeout | undefined;
  /** While Redis is down a check can outlast the interval; the ticks meanwhile do not pile up behind it. */
  private checkingSweeps = false;
  /** Every job name has a handler: a missing one is a compile error, not a stuck queue. */
  private readonly handlers: Handlers = {
    [QueueJobName.ProcessResult]: (job) => this.performResult(job),
    [QueueJobName.SweepUnsettledResults]: () => this.sweeper.sweep(),
    [QueueJobName.DeliverWebhook]: (job, token) => this.webhooks.perform(job, token),
    [QueueJobName.SweepWebhookDeliveries]: () => this.webhookSweeper.sweep(),
    [QueueJobName.SweepExpiredResultFiles]: () => this.sweepExpiredFiles(),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUEUE_CONNECTION) private readonly queueConnection: QueueConnection,
    @InjectQueue(QueueName.Maintenance) private readonly maintenance: Queue,
    private readonly results: ResultWorkService,
    private readonly sweeper: ResultSweeperService,
    private readonly webhooks: WebhookDeliveryService,
    private readonly webhookSweeper: WebhookSweeperService,
    private readonly retentionSweeper: ResultRetentionSweeperService,
    private readonly uploadRetention: UploadRetentionSweeperService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const queues = [...new Set(this.config.WORKER_QUEUES)] as QueueName[];
    for (const queue of queues) {
      const names = (Object.keys(JOB_QUEUES) as QueueJobName[]).filter((name) => JOB_QUEUES[name].includes(queue));
      if (names.length === 0) throw new Error(`WORKER_QUEUES names ${queue}, but this build has no processor for it`);
    }
    for (const queue of queues) this.workers.push(this.startWorker(queue));
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
    this.logger.log({ queues }, 'queue workers started');
  }

  /** Lets running work finish; what does not finish in the grace period is retried elsewhere. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.scheduleKeeper);
    await Promise.all(this.workers.map((worker) => worker.close()));
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

  private startWorker(queue: QueueName): Worker {
    const worker = new Worker(queue, (job, token) => this.dispatch(job, token), {
      ...this.queueConnection,
      concurrency: this.concurrencyOf(queue),
      lockDuration: this.config.WORKER_LOCK_SECONDS * 1000,
      stalledInterval: this.config.WORKER_STALLED_CHECK_SECONDS * 1000,
      maxStalledCount: this.config.WORKER_MAX_STALLED,
    });
    worker.on('failed', (job, error) => void this.onFailed(job, error));
    worker.on('error', (error) => this.logger.error({ err: error, queue }, 'queue worker error'));
    return worker;
  }

  private dispatch(job: Job, token: string | undefined): Promise<unknown> {
    const handler = this.handlers[job.name as QueueJobName] as
      ((job: Job, token: string | undefined) => Promise<unknown>) | undefined;
    if (!handler) throw new UnrecoverableError(`No processor for job name "${job.name}"`);
    return handler(job, token);
  }

  /**
   * One attempt of a result. A failed attempt's code is kept on its queue entry before BullMQ
   * records the failure, so a later settlement from the entry (the sweeper's) keeps that code.
   */
  /** The retention sweep: result files past RESULT_RETENTION_DAYS, then uploads past their expiry. */
  private async sweepExpiredFiles(): Promise<{ results: { expired: number; failed: number }; uploads: number }> {
    const results = await this.retentionSweeper.sweep();
    const { deleted } = await this.uploadRetention.sweep();
    return { results, uploads: deleted };
  }

  private async performResult(job: Job<ResultEntryData>): Promise<void> {
    try {
      await this.results.perform(job.data.resultId, { queue: job.queueName, waitedSeconds: firstAttemptWait(job) });
    } catch (error) {
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
