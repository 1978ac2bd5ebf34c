import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { CapacityService } from '../../capacity/capacity.service';
import { IdempotencyService } from '../../idempotency/idempotency.service';
import { JobLifecycleService } from '../job-lifecycle.service';
import { ResultQueueProducer } from '../result-queue.producer';
import { failureOfEntry, ResultWorkService, type ResultEntryData } from './result-work.service';
import { ResultSweepsRepository, type StaleResultCursor } from './result-sweeps.repository';

/** How much of the unsettled backlog one sweep reads: bounded, so one sweep stays short however long the backlog. */
export interface ResultSweepLimits {
  /** Results read per query. */
  pageSize: number;
  /** Pages read per sweep; the next sweep goes on where this one stopped. */
  pagesPerSweep: number;
}

export const RESULT_SWEEP_LIMITS = Symbol('RESULT_SWEEP_LIMITS');

export const DEFAULT_RESULT_SWEEP_LIMITS: ResultSweepLimits = { pageSize: 500, pagesPerSweep: 4 };

/**
 * The safety net for "no lost work": results that stayed queued or running past a grace period
 * are re-enqueued when their queue entry is gone (a crash between commit and enqueue), and
 * settled as failed when BullMQ gave up on them (stalled too often, or failed while no worker
 * could settle it). A result of a cancelled job waiting out a long retry backoff is cancelled
 * here and its queue entry dropped, rather than only when its next attempt comes.
 *
 * Each sweep reads a bounded number of pages and the next one resumes after the last result
 * read, wrapping round to the oldest at the end, so a stranded result behind a long legitimate
 * backlog is reached within a few sweeps rather than only once the backlog has drained. The
 * cursor is this process's: with several maintenance workers each walks the backlog on its own.
 *
 * Each sweep also reconciles the capacity groups' counters with the results actually pending,
 * which only differ after changes made outside the service (or by an older release during a
 * rolling upgrade).
 */
@Injectable()
export class ResultSweeperService {
  private readonly logger = new Logger(ResultSweeperService.name);
  private resumeAfter: StaleResultCursor | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sweeps: ResultSweepsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RESULT_SWEEP_LIMITS) private readonly limits: ResultSweepLimits,
    private readonly producer: ResultQueueProducer,
    private readonly work: ResultWorkService,
    private readonly lifecycle: JobLifecycleService,
    private readonly idempotency: IdempotencyService,
    private readonly capacity: CapacityService,
  ) {}

  async sweep(): Promise<{ requeued: number; failed: number; cancelled: number }> {
    let requeued = 0;
    let failed = 0;
    let cancelled = 0;
    for (let page = 0; page < this.limits.pagesPerSweep; page++) {
      const { SWEEP_GRACE_SECONDS } = this.config;
      const stale = await this.sweeps.findStale(SWEEP_GRACE_SECONDS, this.limits.pageSize, this.resumeAfter);
      for (const result of stale) {
        const queued = {
          id: result.id,
          capacityGroup: result.capacityGroup,
          sandbox: result.sandbox,
          segmentationModel: result.segmentationModel,
        };
        const queue = this.producer.queueOf(queued);
        const entry: Job<ResultEntryData> | undefined = await queue.getJob(result.id);
        if (!entry) {
          await this.producer.enqueue([queued]);
          requeued++;
        } else {
          const state = await entry.getState();
          if (state === 'failed') {
            if (await this.settleFailedEntry(queue, result.id)) failed++;
          } else if (
            state === 'delayed' &&
            result.jobCancelled &&
            (await this.lifecycle.cancelWaitingResult(result.id))
          ) {
            // Promoted and taken by a worker meanwhile, its attempt finds the result settled and does nothing.
            await entry.remove().catch(() => undefined);
            cancelled++;
          }
        }
      }
      const last = stale[stale.length - 1];
      if (stale.length < this.limits.pageSize || !last) {
        this.resumeAfter = null;
        break;
      }
      this.resumeAfter = { createdAt: last.createdAt, id: last.id };
    }
    await this.dataSource.transaction((manager) => this.idempotency.purgeExpired(manager));
    for (const drift of await this.capacity.reconcile()) {
      this.logger.warn(drift, 'capacity group counter corrected to the results actually pending');
    }
    if (requeued + failed + cancelled > 0) this.logger.warn({ requeued, failed, cancelled }, 'swept stranded results');
    return { requeued, failed, cancelled };
  }

  /**
   * Settles a result whose queue entry failed, with the failure the entry holds once failed.
   * The copy read before the state may predate the failure: an attempt that outlasted the
   * grace period can fail between the two reads, and that copy has neither the attempt's
   * recorded code nor its message, so the tool's code would be lost. A failed entry changes
   * no more, so a read after the state matches it. False if the entry is gone by then.
   */
  private async settleFailedEntry(queue: Queue<ResultEntryData>, resultId: string): Promise<boolean> {
    const failedEntry: Job<ResultEntryData> | undefined = await queue.getJob(resultId);
    if (!failedEntry) return false;
    await this.work.settleFailure(resultId, failureOfEntry(failedEntry));
    return true;
  }
}
