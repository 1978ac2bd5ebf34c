export enum JobStatus {
  Queued = 'queued',
  Processing = 'processing',
  Completed = 'completed',
  Failed = 'failed',
  Cancelled = 'cancelled',
  PartiallyCompleted = 'partially_completed',
}

export enum ResultStatus {
  Queued = 'queued',
  Processing = 'processing',
  Completed = 'completed',
  Failed = 'failed',
  Cancelled = 'cancelled',
}

export enum JobKind {
  Standard = 'standard',
  ProductPhoto = 'product_photo',
}

export const ACTIVE_JOB_STATUSES: readonly JobStatus[] = [JobStatus.Queued, JobStatus.Processing];

/** The status a job ends in once every result is terminal and nobody cancelled it. */
export function terminalJobStatus(completed: number, failed: number, cancelled: number): JobStatus {
  if (completed > 0 && failed + cancelled === 0) return JobStatus.Completed;
  if (completed === 0) return JobStatus.Failed;
  return JobStatus.PartiallyCompleted;
}
