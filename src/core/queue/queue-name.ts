/**
 * Every queue the service declares. Live results queue per capacity group, so background
 * removal and the other tools can be given their own workers and scale apart; sandbox results
 * have a queue of their own, so a sandbox burst never delays paid work.
 */
export enum QueueName {
  BackgroundRemoval = 'background-removal',
  Processing = 'processing',
  Sandbox = 'sandbox',
  WebhookDelivery = 'webhook-delivery',
  Maintenance = 'maintenance',
}

export const ALL_QUEUES: readonly QueueName[] = Object.values(QueueName);
