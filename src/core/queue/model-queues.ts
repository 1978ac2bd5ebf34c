import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { SEGMENTATION_MODELS, type SegmentationModels } from '../segmentation/segmentation-models';
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

/** Whether a queue is a segmentation model's (`background-removal.<model>`): it carries results. */
export const isModelQueue = (queue: string): boolean => queue.startsWith(modelQueueName(''));

/**
 * The queue of each configured model but the default. Their names come from configuration, so
 * they are made here at start rather than registered with BullModule (which needs names at
 * import time); QueueConnectionKeeper logs their errors and lets them settle as it does the
 * registered queues', and they close here after it.
 */
@Injectable()
export class ModelQueues implements OnApplicationShutdown {
  private readonly queues = new Map<string, ResultEntryQueue>();

  constructor(
    @Inject(SEGMENTATION_MODELS) models: SegmentationModels,
    @Inject(QUEUE_CONNECTION) connection: QueueConnection,
  ) {
    for (const { name } of models.all) {
      if (name === models.defaultModel.name) continue;
      this.queues.set(name, new Queue(modelQueueName(name), connection));
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
    await Promise.all(this.all().map((queue) => queue.close()));
  }
}
