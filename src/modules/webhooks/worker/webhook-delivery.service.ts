import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DelayedError, type Job } from 'bullmq';
import DataLoader from 'dataloader';
import { DataSource } from 'typeorm';
import { WebhookMetrics } from '../../../core/metrics/webhook.metrics';
import type { QueueJobName, QueuePayloads } from '../../../core/queue/queue-jobs';
import { DeliverySlots } from '../delivery-slots';
import { WebhookDeliveryQueue } from '../webhook-delivery.queue';
import { JOB_EVENT_TYPES } from '../webhook-event-type';
import { DeliveryStatus, type AttemptOutcome } from '../webhook.entities';
import { WebhookSecretsService } from '../webhook-secrets.service';
import type { SendOutcome } from '../webhook-sender';
import { WebhookSender } from '../webhook-sender';
import { signWebhook } from '../webhook-signature';

/** How long a job event waits, at a time, for its job's earlier events to have been tried. */
const ORDER_WAIT_MS = 100;
/** How long a delivery waits, at a time, for a free slot of its account. */
const SLOT_WAIT_MS = 100;
/**
 * Loads and attempt records arriving within this window share one statement: under load,
 * many deliveries cost a few round trips instead of two each.
 */
const BATCH_WINDOW_MS = 2;
const MAX_BATCH = 256;

interface DeliveryRow {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  url: string;
  account_id: string;
  event_id: string;
  body: string;
  secrets: string[];
  waits_for_earlier_events: boolean;
}

interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  verdict: Verdict;
  startedAt: Date;
  durationMs: number;
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
  private readonly creatingSecrets = new Map<string, Promise<string>>();
  private readonly deliveries = new DataLoader<string, DeliveryRow | undefined>((ids) => this.loadBatch(ids), {
    cache: false,
    maxBatchSize: MAX_BATCH,
    batchScheduleFn: (run) => setTimeout(run, BATCH_WINDOW_MS),
  });
  private readonly attempts = new DataLoader<AttemptRecord, boolean>((records) => this.recordBatch(records), {
    cache: false,
    maxBatchSize: MAX_BATCH,
    batchScheduleFn: (run) => setTimeout(run, BATCH_WINDOW_MS),
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretsService,
    private readonly slots: DeliverySlots,
    private readonly queue: WebhookDeliveryQueue,
    private readonly metrics: WebhookMetrics,
  ) {}

  async perform(job: Job<QueuePayloads[QueueJobName.DeliverWebhook]>, token: string | undefined): Promise<void> {
    const { deliveryId, accountId, attempt } = job.data;
    // The slot comes first: a delivery that must wait for one costs no database round trip.
    if (!this.slots.take(accountId)) return this.postpone(job, token, SLOT_WAIT_MS);
    let delivery: DeliveryRow | undefined;
    let outcome: SendOutcome;
    let startedAt: Date;
    try {
      delivery = await this.deliveries.load(deliveryId);
      if (!delivery || delivery.status !== DeliveryStatus.Pending || delivery.attempts !== attempt - 1) return;
      if (delivery.waits_for_earlier_events) return await this.postpone(job, token, ORDER_WAIT_MS);
      const headers = await this.headersFor(delivery);
      startedAt = new Date();
      outcome = await this.sender.send(delivery.url, delivery.body, headers);
    } finally {
      this.slots.release(accountId);
    }
    const verdict = this.judge(outcome, attempt);
    const durationMs = Date.now() - startedAt.getTime();
    const recorded = await this.attempts.load({ deliveryId, attempt, verdict, startedAt, durationMs });
    // Counted once recorded: a repeated queue entry for the same attempt loses the record and counts nothing.
    if (!recorded) return;
    this.metrics.attempted(verdict.outcome, durationMs / 1000);
    if (verdict.status !== DeliveryStatus.Pending) this.metrics.finishedDelivery(verdict.outcome);
    if (verdict.nextAttemptAt) {
      await this.queue.enqueue([
        { deliveryId, accountId, attempt: attempt + 1, delayMs: verdict.nextAttemptAt.getTime() - Date.now() },
      ]);
    } else if (verdict.status !== DeliveryStatus.Delivered) {
      this.logger.warn(
        { delivery_id: deliveryId, event_id: delivery.event_id, status: verdict.status, error: verdict.error },
        'webhook delivery given up',
      );
    }
  }

  /**
   * The delivery, its event, the account's valid secrets and, for a job's terminal event,
   * whether an earlier event of the job has not had its first attempt yet: a healthy receiver
   * then sees the result events first, and a failing one never holds the job event back longer.
   */
  private async loadBatch(ids: readonly string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.id, d.status, d.attempts, d.url, d.account_id,
              e.id AS event_id, e.body,
              array(SELECT s.secret FROM webhook_secrets s
                     WHERE s.account_id = d.account_id AND (s.expires_at IS NULL OR s.expires_at > now())
                     ORDER BY s.created_at DESC) AS secrets,
              e.type = ANY($2) AND EXISTS (
                SELECT 1 FROM webhook_deliveries earlier JOIN webhook_events ee ON ee.id = earlier.event_id
                 WHERE earlier.job_id = d.job_id AND earlier.status = 'pending' AND earlier.attempts = 0
                   AND earlier.url = d.url AND ee.sequence < e.sequence) AS waits_for_earlier_events
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.id = ANY($1::uuid[])`,
      [ids, [...JOB_EVENT_TYPES]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** Not an attempt: the entry goes back to the delayed set, and BullMQ counts nothing. */
  private async postpone(job: Job, token: string | undefined, waitMs: number): Promise<never> {
    await job.moveToDelayed(Date.now() + waitMs, token);
    throw new DelayedError();
  }

  private async headersFor(delivery: DeliveryRow): Promise<Record<string, string>> {
    const secrets = delivery.secrets.length > 0 ? delivery.secrets : [await this.firstSecret(delivery.account_id)];
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      'x-service-event-id': delivery.event_id,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signWebhook(secrets, delivery.event_id, timestamp, delivery.body),
    };
  }

  /** Creates an account's first secret once, however many of its deliveries ask at the same time. */
  private firstSecret(accountId: string): Promise<string> {
    let creating = this.creatingSecrets.get(accountId);
    if (!creating) {
      creating = this.secrets.current(accountId).finally(() => this.creatingSecrets.delete(accountId));
      this.creatingSecrets.set(accountId, creating);
    }
    return creating;
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

  /**
   * Attempt rows and delivery states, one statement per batch. An attempt counts only if the
   * delivery was still waiting for exactly it: false tells a repeated queue entry it lost.
   */
  private async recordBatch(records: readonly AttemptRecord[]): Promise<boolean[]> {
    const first = new Map<string, AttemptRecord>();
    for (const record of records) if (!first.has(record.deliveryId)) first.set(record.deliveryId, record);
    const unique = [...first.values()];
    const column = <T>(pick: (record: AttemptRecord) => T) => unique.map(pick);
    const rows: Array<{ delivery_id: string }> = await this.dataSource.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::timestamptz[],
                              $6::text[], $7::text[], $8::timestamptz[], $9::int[])
                    AS i(id, attempt, status, status_code, next_attempt_at, outcome, error, started_at, duration_ms)),
       moved AS (
         UPDATE webhook_deliveries d
            SET attempts = i.attempt, status = i.status, last_status_code = i.status_code,
                next_attempt_at = i.next_attempt_at,
                completed_at = CASE WHEN i.status = 'pending' THEN NULL ELSE now() END
           FROM input i
          WHERE d.id = i.id AND d.attempts = i.attempt - 1 AND d.status = 'pending'
          RETURNING d.id)
       INSERT INTO webhook_attempts (delivery_id, number, outcome, status_code, error, started_at, duration_ms, next_attempt_at)
       SELECT i.id, i.attempt, i.outcome, i.status_code, i.error, i.started_at, i.duration_ms, i.next_attempt_at
         FROM input i JOIN moved m ON m.id = i.id
       RETURNING delivery_id`,
      [
        column((r) => r.deliveryId),
        column((r) => r.attempt),
        column((r) => r.verdict.status),
        column((r) => r.verdict.statusCode),
        column((r) => r.verdict.nextAttemptAt),
        column((r) => r.verdict.outcome),
        column((r) => r.verdict.error?.slice(0, 1000) ?? null),
        column((r) => r.startedAt),
        column((r) => r.durationMs),
      ],
    );
    const recorded = new Set(rows.map((row) => row.delivery_id));
    return records.map((record) => first.get(record.deliveryId) === record && recorded.has(record.deliveryId));
  }
}
