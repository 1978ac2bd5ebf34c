import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../../core/errors/domain-error';
import { AccountsRepository } from '../accounts/accounts.repository';
import { WebhookDeliveriesRepository, type EventDestination } from './webhook-deliveries.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import type { WebhookDelivery } from './webhook.entities';

/**
 * Whose webhooks an API key may see: its account's, of its environment's jobs. Another
 * account's event, or one of the other environment, is not found, as a job is.
 */
export interface WebhookOwner {
  accountId: string;
  sandbox: boolean;
}

/**
 * What is done with webhooks from outside the lifecycle: look at deliveries and send an event
 * again. Operators do it for any account; an API key for its own (`WebhookOwner`).
 */
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
    return this.store.findRecentWithAttempts(accountId, { limit });
  }

  /**
   * A page of the owner's deliveries, newest first, after the delivery `afterId`; `limit + 1`
   * are read so the caller can tell whether a next page exists.
   */
  async ownDeliveries(owner: WebhookOwner, query: { limit: number; afterId?: string }): Promise<WebhookDelivery[]> {
    return this.store.findRecentWithAttempts(owner.accountId, {
      limit: query.limit + 1,
      sandbox: owner.sandbox,
      afterId: query.afterId,
    });
  }

  /** A new delivery of the same event, with the same id and body, to the job's webhook URL. */
  async redeliver(eventId: string): Promise<WebhookDelivery> {
    const event = await this.store.findEventDestination(eventId);
    if (!event) throw DomainError.notFound('webhook event');
    return this.deliverAgain(eventId, event);
  }

  /**
   * The owner's redelivery: as an operator's, for an event of its own. Safe to repeat: while a
   * delivery of the event to the job's URL still waits for its first attempt, that delivery is
   * the answer and no other is queued, so a retried request or a second click sends the event
   * once more, not twice. Every delivery carries the same event id, on which receivers dedupe.
   */
  async redeliverOwn(owner: WebhookOwner, eventId: string): Promise<WebhookDelivery> {
    const event = await this.store.findEventDestination(eventId);
    if (!event || event.accountId !== owner.accountId || event.sandbox !== owner.sandbox) {
      throw DomainError.notFound('webhook event');
    }
    const waiting = event.webhookUrl ? await this.store.findUnattempted(eventId, event.webhookUrl) : null;
    if (waiting) return this.store.findWithAttempts(waiting);
    return this.deliverAgain(eventId, event);
  }

  private async deliverAgain(eventId: string, event: EventDestination): Promise<WebhookDelivery> {
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
