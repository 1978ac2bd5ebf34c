/** The event types of spec section 6, and the review's. */
export enum WebhookEventType {
  ResultCompleted = 'image_api.result.completed',
  ResultFailed = 'image_api.result.failed',
  JobCompleted = 'image_api.job.completed',
  JobFailed = 'image_api.job.failed',
  JobPartiallyCompleted = 'image_api.job.partially_completed',
  /** A person decided a completed cut-out's review (accepted, rejected), or re-cut it. */
  ResultReviewed = 'image_api.result.reviewed',
}

export const JOB_EVENT_TYPES: ReadonlySet<string> = new Set([
  WebhookEventType.JobCompleted,
  WebhookEventType.JobFailed,
  WebhookEventType.JobPartiallyCompleted,
]);

/**
 * The statuses an event reports, in the values the jobs module gives its `JobStatus` and
 * `ResultStatus` (whose members are assignable to these). Webhooks sit below jobs, so they name
 * only the values their events tell apart rather than import the jobs' enums.
 */
export type EventResultStatus = 'completed' | 'failed';

export function resultEventType(status: EventResultStatus): WebhookEventType {
  return status === 'completed' ? WebhookEventType.ResultCompleted : WebhookEventType.ResultFailed;
}

/** A job that ends by cancellation emits no job event: the spec names none for it. */
export function jobEventType(status: string): WebhookEventType | null {
  switch (status) {
    case 'completed':
      return WebhookEventType.JobCompleted;
    case 'failed':
      return WebhookEventType.JobFailed;
    case 'partially_completed':
      return WebhookEventType.JobPartiallyCompleted;
    default:
      return null;
  }
}
