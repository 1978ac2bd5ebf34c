/**
 * Every queue the service declares. Results queue per capacity group, so background removal
 * and the other tools can be given their own workers and scale apart.
 */
export enum QueueName {
  BackgroundRemoval = 'background-removal',
  Processing = 'processing',
  WebhookDelivery = 'webhook-delivery',
  Maintenance = 'maintenance',
}

export const ALL_QUEUES: readonly QueueName[] = Object.values(QueueName);
