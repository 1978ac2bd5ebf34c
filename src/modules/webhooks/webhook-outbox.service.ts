import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { StoredSegmentation } from '../../engine/mask/segmentation-report';
import { ResultUrls } from '../../core/storage/result-urls';
import type { ToolId } from '../catalog/tools';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import { jobEventType, resultEventType, type EventResultStatus, type WebhookEventType } from './webhook-event-type';

export interface EventJob {
  id: string;
  accountId: string;
  api: ToolId;
  /** The job's status (a `JobStatus` value); a terminal one picks the job event. */
  status: string;
  sandbox: boolean;
  webhookUrl: string | null;
}

/** A completed cut-out's review as events show it (the API's `review` object). */
export interface EventReview {
  state: string;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
  replaces_result_id: string | null;
  replaced_by_result_id: string | null;
}

export interface EventResult {
  id: string;
  externalId: string | null;
  status: EventResultStatus;
  resultKey: string | null;
  thumbnailKey: string | null;
  /** Null for a result without a preview of its source (no source image, or not completed). */
  sourcePreviewKey: string | null;
  /** The cut-out's uncertainty (0 sure .. 1 unsure), as stored; null for a result that is not a cut-out, or failed. */
  uncertainty: number | null;
  /** Which model and mask post-processing made the cut-out, as stored; null for a result that is not one, or failed. */
  segmentation: StoredSegmentation | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** Whether a person should look at the cut-out (flagged and still pending); false for anything else. */
  needsReview: boolean;
  /** The cut-out's review; null for a result that is not a completed cut-out. */
  review: EventReview | null;
}

/** A delivery written by the outbox, to be enqueued once its transaction has committed. */
export interface RecordedDelivery {
  id: string;
  accountId: string;
  firstAttemptAt: Date;
}

/**
 * Records events in the caller's transaction (contract section 11: the outbox), each with a
 * delivery when the job has a webhook_url. Callers record a job's result event before its
 * terminal job event, so the sequence orders them.
 */
@Injectable()
export class WebhookOutbox {
  constructor(
    private readonly resultUrls: ResultUrls,
    private readonly deliveryQueue: WebhookDeliveryQueue,
    private readonly store: WebhookDeliveriesRepository,
  ) {}

  /** The result's event: its completion or failure, or (`type` `image_api.result.reviewed`) its review's change. */
  async recordResult(
    manager: EntityManager,
    job: EventJob,
    result: EventResult,
    type: WebhookEventType = resultEventType(result.status),
  ): Promise<RecordedDelivery[]> {
    const failed = result.status === 'failed';
    return this.record(manager, job, type, result.id, {
      result: {
        id: result.id,
        external_id: result.externalId,
        status: result.status,
        result_url: result.resultKey ? await this.resultUrls.urlOf(result.resultKey) : null,
        thumbnail_url: result.thumbnailKey ? await this.resultUrls.urlOf(result.thumbnailKey) : null,
        source_preview_url: result.sourcePreviewKey ? await this.resultUrls.urlOf(result.sourcePreviewKey) : null,
        uncertainty: result.uncertainty,
        segmentation: result.segmentation,
        needs_review: result.needsReview,
        review: result.review,
        ...(failed ? { error_code: result.errorCode, error_message: result.errorMessage } : {}),
      },
    });
  }

  /** Nothing for a job that did not end in a status with an event (a cancelled one). */
  async recordJobEnd(manager: EntityManager, job: EventJob): Promise<RecordedDelivery[]> {
    const type = jobEventType(job.status);
    return type ? this.record(manager, job, type, null, {}) : [];
  }

  /** Enqueues what `record*` wrote, after the transaction that wrote it has committed. */
  dispatch(deliveries: readonly RecordedDelivery[]): Promise<void> {
    return deliveries.length > 0 ? this.deliveryQueue.enqueueCommitted(deliveries) : Promise.resolve();
  }

  private async record(
    manager: EntityManager,
    job: EventJob,
    type: WebhookEventType,
    resultId: string | null,
    extra: Record<string, unknown>,
  ): Promise<RecordedDelivery[]> {
    const id = randomUUID();
    const createdAt = new Date();
    const body = JSON.stringify({
      id,
      type,
      created_at: createdAt.toISOString(),
      job: { id: job.id, api: job.api, status: job.status, sandbox: job.sandbox },
      ...extra,
    });
    const firstAttemptAt = new Date(createdAt.getTime() + this.deliveryQueue.delayBefore(1));
    const deliveryId = await this.store.insertEvent(manager, {
      id,
      accountId: job.accountId,
      jobId: job.id,
      resultId,
      type,
      body,
      createdAt,
      deliveryId: randomUUID(),
      webhookUrl: job.webhookUrl,
      firstAttemptAt,
    });
    return deliveryId ? [{ id: deliveryId, accountId: job.accountId, firstAttemptAt }] : [];
  }
}
