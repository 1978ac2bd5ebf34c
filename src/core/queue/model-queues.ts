import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { SEGMENTATION_MODELS, type SegmentationModels } from '../segmentation/segmentation-models';
import { connectionSettled } from './connection-settled';
import type { QueuePayloads, QueueJobName } from './queue-jobs';
import { QueueName } from './queue-name';
import { QUEUE_CONNECTION, type QueueConnection } from './queue-connection';

export type ResultEntryQueue = Queue<QueuePayloads[QueueJobName.ProcessResult]>;

/**
 * Results cut out with a model other than the default travel on a queue of that model's own,
 * `background-removal.<model>`, which only workers that load the model consume: a worker never
 * takes a result whose model it lacks, and a 1 GB model need not sit on every worker.
 */
export const modelQueueName = (model: string): string => `${QueueName.BackgroundRemoval}.${model}`;

/**
 * The queue of each configured model but the default. Their names come from configuration, so
 * they are made here at start rather than registered with BullModule (which needs names at
 * import time); errors are logged as the registered queues' are, and they close at shutdown.
 */
@Injectable()
export class ModelQueues implements OnApplicationShutdown {
  private readonly logger = new Logger('QueueConnection');
  private readonly queues = new Map<string, ResultEntryQueue>();

  constructor(
    @Inject(SEGMENTATION_MODELS) models: SegmentationModels,
    @Inject(QUEUE_CONNECTION) connection: QueueConnection,
  ) {
    for (const { name } of models.all) {
      if (name === models.defaultModel.name) continue;
      const queue: ResultEntryQueue = new Queue(modelQueueName(name), connection);
      queue.on('error', (error) => this.logger.warn({ err: error, queue: queue.name }, 'queue connection error'));
      this.queues.set(name, queue);
    }
  }

  /** The queue of results cut out with `model`; undefined for the default model and for one not configured. */
  of(model: string): ResultEntryQueue | undefined {
    return this.queues.get(model);
  }

  /** Every model queue, for the depth metrics and Bull Board. */
  all(): ResultEntryQueue[] {
    return [...this.queues.values()];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      this.all().map(async (queue) => {
        await connectionSettled(queue);
        await queue.close();
      }),
    );
  }
}
