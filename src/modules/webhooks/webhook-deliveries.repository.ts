import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import { JOB_EVENT_TYPES, type WebhookEventType } from './webhook-event-type';
import { DeliveryStatus, WebhookDelivery, type AttemptOutcome } from './webhook.entities';

/** A delivery as an attempt needs it: its event's body and the account's valid secrets. */
export interface DeliveryForAttempt {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  url: string;
  accountId: string;
  eventId: string;
  body: string;
  /** The account's signing secrets that have not expired, newest first. */
  secrets: string[];
  /** A job event whose job has an earlier event to the same URL that has not had its first attempt. */
  waitsForEarlierEvents: boolean;
}

/** What an attempt decided: recorded as the attempt's row and the delivery's new state. */
export interface AttemptVerdict {
  outcome: AttemptOutcome;
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  verdict: AttemptVerdict;
  startedAt: Date;
  durationMs: number;
}

/** A new event and, when its job has a webhook URL, its first delivery. */
export interface NewEvent {
  id: string;
  accountId: string;
  jobId: string;
  resultId: string | null;
  type: WebhookEventType;
  body: string;
  createdAt: Date;
  deliveryId: string;
  webhookUrl: string | null;
  firstAttemptAt: Date;
}

/** Another delivery of an existing event, to `url`. */
export interface NewRedelivery {
  id: string;
  eventId: string;
  accountId: string;
  jobId: string;
  url: string;
}

export interface OverdueDelivery {
  id: string;
  accountId: string;
  attempts: number;
}

/** Where an event would be delivered again: its account and job, and the job's webhook URL. */
export interface EventDestination {
  accountId: string;
  jobId: string;
  /** Whether the event's job is a sandbox job. */
  sandbox: boolean;
  webhookUrl: string | null;
}

/** Which of an account's deliveries a listing holds. */
export interface DeliveryListFilter {
  limit: number;
  /** Only deliveries of sandbox jobs (true) or of live jobs (false); both when absent. */
  sandbox?: boolean;
  /** Exclusive: deliveries listed after this one (newest first). */
  afterId?: string;
}

interface DeliveryForAttemptRow {
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

/** Every statement on webhook events, deliveries and attempts. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Writes the event and, when its job has a webhook URL, its delivery, in the caller's
   * transaction; returns the delivery's id, or null when there is none.
   */
  async insertEvent(manager: EntityManager, event: NewEvent): Promise<string | null> {
    const rows: Array<{ id: string }> = await manager.query(
      `WITH event AS (
         INSERT INTO webhook_events (id, account_id, job_id, result_id, type, body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id)
       INSERT INTO webhook_deliveries (id, event_id, account_id, job_id, url, status, next_attempt_at)
       SELECT $8, event.id, $2, $3, $9, 'pending', $10 FROM event WHERE $9::text IS NOT NULL
       RETURNING id`,
      [
        event.id,
        event.accountId,
        event.jobId,
        event.resultId,
        event.type,
        event.body,
        event.createdAt,
        event.deliveryId,
        event.webhookUrl,
        event.firstAttemptAt,
      ],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * The deliveries of `ids` as attempts need them (undefined for an unknown id), in one
   * statement. A job's terminal event waits while an earlier event of the job has not had its
   * first attempt: a healthy receiver then sees the result events first, and a failing one
   * never holds the job event back longer.
   */
  async findForAttempts(ids: readonly string[]): Promise<Array<DeliveryForAttempt | undefined>> {
    const rows: DeliveryForAttemptRow[] = await this.dataSource.query(
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
    const byId = new Map(
      rows.map((row): [string, DeliveryForAttempt] => [
        row.id,
        {
          id: row.id,
          status: row.status,
          attempts: row.attempts,
          url: row.url,
          accountId: row.account_id,
          eventId: row.event_id,
          body: row.body,
          secrets: row.secrets,
          waitsForEarlierEvents: row.waits_for_earlier_events,
        },
      ]),
    );
    return ids.map((id) => byId.get(id));
  }

  /**
   * Attempt rows and delivery states, one statement for all of `records` (one per delivery).
   * An attempt counts only if its delivery was still pending and waiting for exactly it; returns
   * the ids of the deliveries whose attempt was recorded.
   */
  async recordAttempts(records: readonly AttemptRecord[]): Promise<Set<string>> {
    const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
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
       INSERT INTO webhook_attempts (delivery_id, number, outcome, status_code, error, started_at, duration_ms, ` +
        `next_attempt_at)
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
    return new Set(rows.map((row) => row.delivery_id));
  }

  /** Pending deliveries whose next attempt is overdue by more than `graceSeconds`, most overdue first. */
  async findOverdue(graceSeconds: number, limit: number): Promise<OverdueDelivery[]> {
    const rows: Array<{ id: string; account_id: string; attempts: number }> = await this.dataSource.query(
      `SELECT id, account_id, attempts FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
        ORDER BY next_attempt_at LIMIT $2`,
      [graceSeconds, limit],
    );
    return rows.map((row) => ({ id: row.id, accountId: row.account_id, attempts: row.attempts }));
  }

  /** Deletes up to `limit` events older than `retentionDays` that have no pending delivery; how many went. */
  async deleteExpiredEvents(retentionDays: number, limit: number): Promise<number> {
    const purged: unknown[] = await this.dataSource.query(
      `WITH expired AS (
         DELETE FROM webhook_events WHERE id IN (
           SELECT e.id FROM webhook_events e
            WHERE e.created_at < now() - make_interval(days => $1)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
            ORDER BY e.created_at LIMIT $2)
         RETURNING id)
       SELECT id FROM expired`,
      [retentionDays, limit],
    );
    return purged.length;
  }

  /**
   * The account's most recent deliveries, newest first, each with its event and every attempt
   * made. The page's ids are chosen by one statement (the filters and the cursor are plain SQL),
   * then read with their event and attempts.
   */
  async findRecentWithAttempts(accountId: string, filter: DeliveryListFilter): Promise<WebhookDelivery[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT d.id FROM webhook_deliveries d
        WHERE d.account_id = $1
          AND ($2::boolean IS NULL OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = d.job_id AND j.sandbox = $2))
          AND ($3::uuid IS NULL OR (d.created_at, d.id) <
                (SELECT p.created_at, p.id FROM webhook_deliveries p WHERE p.id = $3 AND p.account_id = $1))
        ORDER BY d.created_at DESC, d.id DESC
        LIMIT $4`,
      [accountId, filter.sandbox ?? null, filter.afterId ?? null, filter.limit],
    );
    if (rows.length === 0) return [];
    return this.dataSource.getRepository(WebhookDelivery).find({
      where: { id: In(rows.map((row) => row.id)) },
      relations: { event: true, attemptLog: true },
      order: { createdAt: 'DESC', id: 'DESC', attemptLog: { number: 'ASC' } },
    });
  }

  /** A delivery of the event to `url` that is waiting for its first attempt, if there is one. */
  async findUnattempted(eventId: string, url: string): Promise<string | null> {
    const [row]: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM webhook_deliveries
        WHERE event_id = $1 AND url = $2 AND status = 'pending' AND attempts = 0
        ORDER BY created_at DESC LIMIT 1`,
      [eventId, url],
    );
    return row?.id ?? null;
  }

  findWithAttempts(deliveryId: string): Promise<WebhookDelivery> {
    return this.dataSource.getRepository(WebhookDelivery).findOneOrFail({
      where: { id: deliveryId },
      relations: { event: true, attemptLog: true },
    });
  }

  async findEventDestination(eventId: string): Promise<EventDestination | null> {
    const [event]: Array<{ account_id: string; job_id: string; sandbox: boolean; webhook_url: string | null }> =
      await this.dataSource.query(
        `SELECT e.account_id, e.job_id, j.sandbox, j.webhook_url FROM webhook_events e JOIN jobs j ON j.id = ` +
          `e.job_id WHERE e.id = $1`,
        [eventId],
      );
    return event
      ? { accountId: event.account_id, jobId: event.job_id, sandbox: event.sandbox, webhookUrl: event.webhook_url }
      : null;
  }

  /** A new pending delivery of an existing event, due now. */
  async insertRedelivery(delivery: NewRedelivery): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, event_id, account_id, job_id, url, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())`,
      [delivery.id, delivery.eventId, delivery.accountId, delivery.jobId, delivery.url, DeliveryStatus.Pending],
    );
  }
}
