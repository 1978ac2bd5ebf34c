import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { QueueName } from '../../../core/queue/queue-name';
import type { CapacityGroup } from '../../catalog/tools';
import { IdempotencyService } from '../../idempotency/idempotency.service';
import { RESULT_QUEUE, ResultQueueProducer } from '../result-queue.producer';
import { ResultWorkService } from './result-work.service';

/** Bounded so one sweep stays short however much is stranded; the next sweep takes the rest. */
const SWEEP_BATCH = 500;

/**
 * The safety net for "no lost work": results that stayed queued or running past a grace period
 * are re-enqueued when their queue entry is gone (a crash between commit and enqueue), and
 * settled as failed when BullMQ gave up on them (stalled too often, or failed while no worker
 * could settle it).
 */
@Injectable()
export class ResultSweeperService {
  private readonly logger = new Logger(ResultSweeperService.name);
  private readonly queues: Record<QueueName.BackgroundRemoval | QueueName.Processing, Queue>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(QueueName.BackgroundRemoval) backgroundRemoval: Queue,
    @InjectQueue(QueueName.Processing) processing: Queue,
    private readonly producer: ResultQueueProducer,
    private readonly work: ResultWorkService,
    private readonly idempotency: IdempotencyService,
  ) {
    this.queues = { [QueueName.BackgroundRemoval]: backgroundRemoval, [QueueName.Processing]: processing };
  }

  async sweep(): Promise<{ requeued: number; failed: number }> {
    const stale: Array<{ id: string; capacity_group: CapacityGroup }> = await this.dataSource.query(
      `SELECT id, capacity_group FROM job_results
        WHERE status IN ('queued', 'processing')
          AND coalesce(started_at, created_at) < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT $2`,
      [this.config.SWEEP_GRACE_SECONDS, SWEEP_BATCH],
    );
    let requeued = 0;
    let failed = 0;
    for (const result of stale) {
      const queue = this.queues[RESULT_QUEUE[result.capacity_group] as keyof typeof this.queues];
      const entry = await queue.getJob(result.id);
      if (!entry) {
        await this.producer.enqueue([{ id: result.id, capacityGroup: result.capacity_group }]);
        requeued++;
      } else if ((await entry.getState()) === 'failed') {
        await this.work.settleFailure(result.id, new Error(entry.failedReason));
        failed++;
      }
    }
    await this.dataSource.transaction((manager) => this.idempotency.purgeExpired(manager));
    if (requeued + failed > 0) this.logger.warn({ requeued, failed }, 'swept stranded results');
    return { requeued, failed };
  }
}
