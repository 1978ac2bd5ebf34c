import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DelayedError, type Job } from 'bullmq';
import { DataSource } from 'typeorm';
import type { QueueJobName, QueuePayloads } from '../../../core/queue/queue-jobs';
import { DeliverySlots } from '../delivery-slots';
import { WebhookDeliveryQueue } from '../webhook-delivery.queue';
import { JOB_EVENT_TYPES } from '../webhook-event-type';
import { DeliveryStatus, type AttemptOutcome } from '../webhook.entities';
import { WebhookSecretsService } from '../webhook-secrets.service';
import type { SendOutcome } from '../webhook-sender';
import { WebhookSender } from '../webhook-sender';
import { signWebhook } from '../webhook-signature';

/** How long a job event waits, at a time, for its job's earlier events to be tried first. */
const ORDER_WAIT_MS = 200;
/** How long a delivery waits, at a time, for a free slot of its account. */
const SLOT_WAIT_MS = 500;

interface DeliveryRow {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  url: string;
  account_id: string;
  job_id: string;
  event_id: string;
  type: string;
  body: string;
  sequence: string;
  secrets: string[];
}

interface Verdict {
  outcome: AttemptOutcome;
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

/**
 * One delivery attempt (contract section 11): sign the stored body with every valid secret,
 * POST it, record the attempt, and schedule the next one when the schedule allows. The
 * conditional update on `attempts` makes a repeated queue entry for the same attempt harmless.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretsService,
    private readonly slots: DeliverySlots,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  async perform(job: Job<QueuePayloads[QueueJobName.DeliverWebhook]>, token: string | undefined): Promise<void> {
    const { deliveryId, attempt } = job.data;
    const delivery = await this.load(deliveryId);
    if (!delivery || delivery.status !== DeliveryStatus.Pending || delivery.attempts !== attempt - 1) return;
    if (JOB_EVENT_TYPES.has(delivery.type) && (await this.hasUntriedEarlierEvents(delivery))) {
      return this.postpone(job, token, ORDER_WAIT_MS);
    }
    if (!(await this.slots.take(delivery.account_id, deliveryId))) return this.postpone(job, token, SLOT_WAIT_MS);

    const startedAt = new Date();
    let outcome: SendOutcome;
    try {
      outcome = await this.sender.send(delivery.url, delivery.body, await this.headersFor(delivery));
    } finally {
      await this.slots.release(delivery.account_id, deliveryId);
    }
    const verdict = this.judge(outcome, attempt);
    const recorded = await this.record(delivery, attempt, verdict, startedAt, Date.now() - startedAt.getTime());
    if (!recorded) return;
    if (verdict.nextAttemptAt) {
      await this.queue.enqueue([
        { deliveryId, attempt: attempt + 1, delayMs: verdict.nextAttemptAt.getTime() - Date.now() },
      ]);
    } else if (verdict.status !== DeliveryStatus.Delivered) {
      this.logger.warn(
        { delivery_id: deliveryId, event_id: delivery.event_id, status: verdict.status, error: verdict.error },
        'webhook delivery given up',
      );
    }
  }

  private async load(deliveryId: string): Promise<DeliveryRow | undefined> {
    const [row]: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.id, d.status, d.attempts, d.url, d.account_id, d.job_id,
              e.id AS event_id, e.type, e.body, e.sequence,
              array(SELECT s.secret FROM webhook_secrets s
                     WHERE s.account_id = d.account_id AND (s.expires_at IS NULL OR s.expires_at > now())
                     ORDER BY s.created_at DESC) AS secrets
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return row;
  }

  /**
   * A job's terminal event goes out after each of its result events has had a first attempt,
   * so a healthy receiver sees them in order; a failing one never holds it back for longer.
   */
  private async hasUntriedEarlierEvents(delivery: DeliveryRow): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.job_id = $1 AND d.status = 'pending' AND d.attempts = 0 AND d.url = $2 AND e.sequence < $3
        LIMIT 1`,
      [delivery.job_id, delivery.url, delivery.sequence],
    );
    return rows.length > 0;
  }

  /** Not an attempt: the entry goes back to the delayed set, and BullMQ counts nothing. */
  private async postpone(job: Job, token: string | undefined, waitMs: number): Promise<never> {
    await job.moveToDelayed(Date.now() + waitMs, token);
    throw new DelayedError();
  }

  private async headersFor(delivery: DeliveryRow): Promise<Record<string, string>> {
    const secrets = delivery.secrets.length > 0 ? delivery.secrets : [await this.secrets.current(delivery.account_id)];
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      'x-service-event-id': delivery.event_id,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signWebhook(secrets, delivery.event_id, timestamp, delivery.body),
    };
  }

  private judge(outcome: SendOutcome, attempt: number): Verdict {
    if (outcome.kind === 'blocked') {
      return { outcome: DeliveryStatus.Blocked, status: DeliveryStatus.Blocked, statusCode: null, error: outcome.reason, nextAttemptAt: null };
    }
    if (outcome.kind === 'response' && outcome.statusCode >= 200 && outcome.statusCode < 300) {
      return { outcome: DeliveryStatus.Delivered, status: DeliveryStatus.Delivered, statusCode: outcome.statusCode, error: null, nextAttemptAt: null };
    }
    if (outcome.kind === 'response' && outcome.statusCode === 410) {
      return { outcome: DeliveryStatus.Gone, status: DeliveryStatus.Gone, statusCode: 410, error: 'the receiver answered 410 Gone', nextAttemptAt: null };
    }
    const statusCode = outcome.kind === 'response' ? outcome.statusCode : null;
    const error =
      outcome.kind === 'error'
        ? outcome.reason
        : outcome.statusCode >= 300 && outcome.statusCode < 400
          ? `the receiver answered ${outcome.statusCode}; redirects are not followed`
          : `the receiver answered ${outcome.statusCode}`;
    const retry = attempt < this.queue.maxAttempts;
    return {
      outcome: DeliveryStatus.Failed,
      status: retry ? DeliveryStatus.Pending : DeliveryStatus.Failed,
      statusCode,
      error,
      nextAttemptAt: retry ? new Date(Date.now() + this.queue.delayBefore(attempt + 1)) : null,
    };
  }

  /** Attempt row and delivery state in one statement; false when another run recorded it first. */
  private async record(
    delivery: DeliveryRow,
    attempt: number,
    verdict: Verdict,
    startedAt: Date,
    durationMs: number,
  ): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH moved AS (
         UPDATE webhook_deliveries
            SET attempts = $2, status = $3, last_status_code = $4, next_attempt_at = $5,
                completed_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
          WHERE id = $1 AND attempts = $2 - 1 AND status = 'pending'
          RETURNING id)
       INSERT INTO webhook_attempts (delivery_id, number, outcome, status_code, error, started_at, duration_ms, next_attempt_at)
       SELECT id, $2, $6, $4, $7, $8, $9, $5 FROM moved
       RETURNING id`,
      [
        delivery.id,
        attempt,
        verdict.status,
        verdict.statusCode,
        verdict.nextAttemptAt,
        verdict.outcome,
        verdict.error?.slice(0, 1000) ?? null,
        startedAt,
        durationMs,
      ],
    );
    return rows.length > 0;
  }
}
