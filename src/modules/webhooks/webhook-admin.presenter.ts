import type { DeliveryDto } from './webhook-admin.dto';
import type { WebhookDelivery } from './webhook.entities';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function presentDelivery(delivery: WebhookDelivery): DeliveryDto {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.event?.type ?? '',
    job_id: delivery.jobId,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: iso(delivery.nextAttemptAt),
    last_status_code: delivery.lastStatusCode,
    created_at: delivery.createdAt.toISOString(),
    completed_at: iso(delivery.completedAt),
    attempt_log: (delivery.attemptLog ?? []).map((attempt) => ({
      number: attempt.number,
      outcome: attempt.outcome,
      status_code: attempt.statusCode,
      error: attempt.error,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      next_attempt_at: iso(attempt.nextAttemptAt),
    })),
  };
}
