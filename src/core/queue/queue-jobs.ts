import type { JobsOptions } from 'bullmq';
import { QueueName } from './queue-name';

/** Every job name, the queue it travels on, and its payload: the typed queue contract. */
export enum QueueJobName {
  ProcessResult = 'process-result',
  SweepUnsettledResults = 'sweep-unsettled-results',
  DeliverWebhook = 'deliver-webhook',
  SweepWebhookDeliveries = 'sweep-webhook-deliveries',
  SweepExpiredResultFiles = 'sweep-expired-result-files',
}

export interface QueuePayloads {
  [QueueJobName.ProcessResult]: { resultId: string };
  [QueueJobName.SweepUnsettledResults]: Record<string, never>;
  /** One attempt of one delivery; the attempt number is part of the BullMQ job id. */
  [QueueJobName.DeliverWebhook]: { deliveryId: string; accountId: string; attempt: number };
  [QueueJobName.SweepWebhookDeliveries]: Record<string, never>;
  [QueueJobName.SweepExpiredResultFiles]: Record<string, never>;
}

/** Queues that carry each job name; a worker refuses to start if it consumes one it cannot handle. */
export const JOB_QUEUES: Record<QueueJobName, readonly QueueName[]> = {
  [QueueJobName.ProcessResult]: [QueueName.BackgroundRemoval, QueueName.Processing, QueueName.Sandbox],
  [QueueJobName.SweepUnsettledResults]: [QueueName.Maintenance],
  [QueueJobName.DeliverWebhook]: [QueueName.WebhookDelivery],
  [QueueJobName.SweepWebhookDeliveries]: [QueueName.Maintenance],
  [QueueJobName.SweepExpiredResultFiles]: [QueueName.Maintenance],
};

/**
 * Retention keeps finished jobs long enough that a second enqueue of the same id (from the
 * sweeper) is recognised as a duplicate, and short enough that Redis stays small.
 */
export const RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 3600, count: 50_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
