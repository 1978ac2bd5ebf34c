import { JobStatus, ResultStatus } from '../jobs/job-status';

/** The event types of spec section 6. */
export enum WebhookEventType {
  ResultCompleted = 'image_api.result.completed',
  ResultFailed = 'image_api.result.failed',
  JobCompleted = 'image_api.job.completed',
  JobFailed = 'image_api.job.failed',
  JobPartiallyCompleted = 'image_api.job.partially_completed',
}

export const JOB_EVENT_TYPES: ReadonlySet<string> = new Set([
  WebhookEventType.JobCompleted,
  WebhookEventType.JobFailed,
  WebhookEventType.JobPartiallyCompleted,
]);

export function resultEventType(status: ResultStatus.Completed | ResultStatus.Failed): WebhookEventType {
  return status === ResultStatus.Completed ? WebhookEventType.ResultCompleted : WebhookEventType.ResultFailed;
}

/** A job that ends by cancellation emits no job event: the spec names none for it. */
export function jobEventType(status: JobStatus): WebhookEventType | null {
  switch (status) {
    case JobStatus.Completed:
      return WebhookEventType.JobCompleted;
    case JobStatus.Failed:
      return WebhookEventType.JobFailed;
    case JobStatus.PartiallyCompleted:
      return WebhookEventType.JobPartiallyCompleted;
    default:
      return null;
  }
}
