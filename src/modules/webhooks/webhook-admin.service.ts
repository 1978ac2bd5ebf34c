import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { AccountsRepository } from '../accounts/accounts.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import { DeliveryStatus, WebhookDelivery } from './webhook.entities';

/** What operators do with webhooks: look at deliveries and send an event again. */
@Injectable()
export class WebhookAdminService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: WebhookDeliveryQueue,
    private readonly accounts: AccountsRepository,
  ) {}

  /** The account's most recent deliveries, newest first, each with every attempt made. */
  async recentDeliveries(accountId: string, limit: number): Promise<WebhookDelivery[]> {
    if (!(await this.accounts.exists(accountId))) throw DomainError.notFound('account');
    return this.dataSource.getRepository(WebhookDelivery).find({
      where: { accountId },
      relations: { event: true, attemptLog: true },
      order: { createdAt: 'DESC', id: 'DESC', attemptLog: { number: 'ASC' } },
      take: limit,
    });
  }

  /** A new delivery of the same event, with the same id and body, to the job's webhook URL. */
  async redeliver(eventId: string): Promise<WebhookDelivery> {
    const [event]: Array<{ account_id: string; job_id: string; webhook_url: string | null }> = await this.dataSource.query(
      `SELECT e.account_id, e.job_id, j.webhook_url FROM webhook_events e JOIN jobs j ON j.id = e.job_id WHERE e.id = $1`,
      [eventId],
    );
    if (!event) throw DomainError.notFound('webhook event');
    if (!event.webhook_url) {
      throw DomainError.invalid(
        [{ path: 'eventId', message: 'the job of this event was created without a webhook_url' }],
        'This event has no destination to deliver to.',
      );
    }
    const id = randomUUID();
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, event_id, account_id, job_id, url, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())`,
      [id, eventId, event.account_id, event.job_id, event.webhook_url, DeliveryStatus.Pending],
    );
    await this.queue.enqueueCommitted([{ id, accountId: event.account_id, firstAttemptAt: new Date() }]);
    return this.dataSource.getRepository(WebhookDelivery).findOneOrFail({
      where: { id },
      relations: { event: true, attemptLog: true },
    });
  }
}
