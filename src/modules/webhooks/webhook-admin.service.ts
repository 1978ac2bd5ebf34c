import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../../core/errors/domain-error';
import { AccountsRepository } from '../accounts/accounts.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import type { WebhookDelivery } from './webhook.entities';

/** What operators do with webhooks: look at deliveries and send an event again. */
@Injectable()
export class WebhookAdminService {
  constructor(
    private readonly store: WebhookDeliveriesRepository,
    private readonly queue: WebhookDeliveryQueue,
    private readonly accounts: AccountsRepository,
  ) {}

  /** The account's most recent deliveries, newest first, each with every attempt made. */
  async recentDeliveries(accountId: string, limit: number): Promise<WebhookDelivery[]> {
    if (!(await this.accounts.exists(accountId))) throw DomainError.notFound('account');
    return this.store.findRecentWithAttempts(accountId, limit);
  }

  /** A new delivery of the same event, with the same id and body, to the job's webhook URL. */
  async redeliver(eventId: string): Promise<WebhookDelivery> {
    const event = await this.store.findEventDestination(eventId);
    if (!event) throw DomainError.notFound('webhook event');
    if (!event.webhookUrl) {
      throw DomainError.invalid(
        [{ path: 'eventId', message: 'the job of this event was created without a webhook_url' }],
        'This event has no destination to deliver to.',
      );
    }
    const id = randomUUID();
    await this.store.insertRedelivery({
      id,
      eventId,
      accountId: event.accountId,
      jobId: event.jobId,
      url: event.webhookUrl,
    });
    await this.queue.enqueueCommitted([{ id, accountId: event.accountId, firstAttemptAt: new Date() }]);
    return this.store.findWithAttempts(id);
  }
}
