import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { QueueJobName, RETENTION } from '../../core/queue/queue-jobs';
import { ModelQueues, type ResultEntryQueue } from '../../core/queue/model-queues';
import { QueueName } from '../../core/queue/queue-name';
import { CapacityGroup } from '../catalog/tools';

/** What decides a result's queue. */
export interface QueuedResult {
  id: string;
  capacityGroup: CapacityGroup;
  sandbox: boolean;
  /** The segmentation model its request names; null when it names none (the default model). */
  segmentationModel: string | null;
}

export type ResultQueueName = QueueName.BackgroundRemoval | QueueName.Processing | QueueName.Sandbox;

/** Background removal and the other tools are queued, and so scaled, apart. */
const LIVE_QUEUE: Record<CapacityGroup, ResultQueueName> = {
  [CapacityGroup.BackgroundRemoval]: QueueName.BackgroundRemoval,
  [CapacityGroup.Processing]: QueueName.Processing,
};

/**
 * Sandbox results have their own queue, whatever their tool, with its own concurrency: they
 * are admitted outside group capacity, so on the live queues a burst of them would delay paid
 * work.
 */
export function resultQueueOf(result: Pick<QueuedResult, 'capacityGroup' | 'sandbox'>): ResultQueueName {
  return result.sandbox ? QueueName.Sandbox : LIVE_QUEUE[result.capacityGroup];
}

/** Retry delays grow from this, doubling per attempt. */
const BACKOFF_MS = 2000;

/**
 * The only producer of result work. The BullMQ job id is the result id, so enqueueing a result
 * twice (the sweeper after a crash) adds nothing.
 */
@Injectable()
export class ResultQueueProducer {
  private readonly queues: Record<ResultQueueName, ResultEntryQueue>;

  constructor(
    @InjectQueue(QueueName.BackgroundRemoval) backgroundRemoval: Queue,
    @InjectQueue(QueueName.Processing) processing: Queue,
    @InjectQueue(QueueName.Sandbox) sandbox: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly models: ModelQueues,
  ) {
    this.queues = {
      [QueueName.BackgroundRemoval]: backgroundRemoval,
      [QueueName.Processing]: processing,
      [QueueName.Sandbox]: sandbox,
    };
  }

  /**
   * The queue a result travels on (also to look its entry up): a live result that names a
   * model other than the default goes to that model's queue. One that names a model no longer
   * configured goes to its tool's queue, where the segmenter refuses it and it fails uncharged.
   */
  queueOf(result: Omit<QueuedResult, 'id'>): ResultEntryQueue {
    const model = result.sandbox || !result.segmentationModel ? undefined : this.models.of(result.segmentationModel);
    return model ?? this.queues[resultQueueOf(result)];
  }

  /**
   * A queue given one result gets a plain add: addBulk wraps its adds in MULTI/EXEC, a pipeline
   * that copies every BullMQ script onto itself, which a one-result job (the common create) can
   * do without.
   */
  async enqueue(results: readonly QueuedResult[]): Promise<void> {
    const byQueue = new Map<ResultEntryQueue, string[]>();
    for (const result of results) {
      const queue = this.queueOf(result);
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), result.id]);
    }
    await Promise.all(
      [...byQueue].map(async ([queue, ids]) => {
        const jobs = ids.map((resultId) => ({
          name: QueueJobName.ProcessResult,
          data: { resultId },
          opts: {
            jobId: resultId,
            attempts: this.config.RESULT_ATTEMPTS,
            backoff: { type: 'exponential', delay: BACKOFF_MS },
            ...RETENTION,
          },
        }));
        if (jobs.length === 1) await queue.add(jobs[0].name, jobs[0].data, jobs[0].opts);
        else await queue.addBulk(jobs);
      }),
    );
  }
}
