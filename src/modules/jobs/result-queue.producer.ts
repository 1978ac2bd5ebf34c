import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { QueueJobName, RETENTION, type QueuePayloads } from '../../core/queue/queue-jobs';
import { QueueName } from '../../core/queue/queue-name';
import { CapacityGroup } from '../catalog/tools';

/** Background removal and the other tools are queued, and so scaled, apart. */
export const RESULT_QUEUE: Record<CapacityGroup, QueueName> = {
  [CapacityGroup.BackgroundRemoval]: QueueName.BackgroundRemoval,
  [CapacityGroup.Processing]: QueueName.Processing,
};

/** Retry delays grow from this, doubling per attempt. */
const BACKOFF_MS = 2000;

/**
 * The only producer of result work. The BullMQ job id is the result id, so enqueueing a result
 * twice (the sweeper after a crash) adds nothing.
 */
@Injectable()
export class ResultQueueProducer {
  private readonly queues: Record<CapacityGroup, Queue<QueuePayloads[QueueJobName.ProcessResult]>>;

  constructor(
    @InjectQueue(QueueName.BackgroundRemoval) backgroundRemoval: Queue,
    @InjectQueue(QueueName.Processing) processing: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.queues = {
      [CapacityGroup.BackgroundRemoval]: backgroundRemoval,
      [CapacityGroup.Processing]: processing,
    };
  }

  async enqueue(results: ReadonlyArray<{ id: string; capacityGroup: CapacityGroup }>): Promise<void> {
    const byGroup = new Map<CapacityGroup, string[]>();
    for (const result of results) byGroup.set(result.capacityGroup, [...(byGroup.get(result.capacityGroup) ?? []), result.id]);
    await Promise.all(
      [...byGroup].map(([group, ids]) =>
        this.queues[group].addBulk(
          ids.map((resultId) => ({
            name: QueueJobName.ProcessResult,
            data: { resultId },
            opts: {
              jobId: resultId,
              attempts: this.config.RESULT_ATTEMPTS,
              backoff: { type: 'exponential', delay: BACKOFF_MS },
              ...RETENTION,
            },
          })),
        ),
      ),
    );
  }
}
