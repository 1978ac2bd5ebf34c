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

/** Why a result failed (contract section 7). */
export enum ResultErrorCode {
  SourceFetchFailed = 'source_fetch_failed',
  SourceBlocked = 'source_blocked',
  SourceTooLarge = 'source_too_large',
  SourceNotImage = 'source_not_image',
  ProcessingFailed = 'processing_failed',
  ProviderError = 'provider_error',
  Timeout = 'timeout',
  SandboxSimulatedFailure = 'sandbox_simulated_failure',
}

export const ACTIVE_JOB_STATUSES: readonly JobStatus[] = [JobStatus.Queued, JobStatus.Processing];

/** The status a job ends in once every result is terminal and nobody cancelled it. */
export function terminalJobStatus(completed: number, failed: number, cancelled: number): JobStatus {
  if (completed > 0 && failed + cancelled === 0) return JobStatus.Completed;
  if (completed === 0) return JobStatus.Failed;
  return JobStatus.PartiallyCompleted;
}
