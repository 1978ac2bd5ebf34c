/** Every error code a client can receive (contract section 2). */
export enum ErrorCode {
  InvalidRequest = 'invalid_request',
  Unauthorized = 'unauthorized',
  InsufficientCredits = 'insufficient_credits',
  ApiAccessDisabled = 'api_access_disabled',
  AccountRestricted = 'account_restricted',
  NotFound = 'not_found',
  IdempotencyConflict = 'idempotency_conflict',
  NotReviewable = 'not_reviewable',
  AlreadyRecut = 'already_recut',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  RateLimitExceeded = 'rate_limit_exceeded',
  TooManyActiveJobs = 'too_many_active_jobs',
  TooManyPendingResults = 'too_many_pending_results',
  CapacityUnavailable = 'capacity_unavailable',
  ToolUnavailable = 'tool_unavailable',
  ServiceUnavailable = 'service_unavailable',
  InternalError = 'internal_error',
}

/** The one place that decides which HTTP status each code travels with. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.InvalidRequest:
      return 400;
    case ErrorCode.Unauthorized:
      return 401;
    case ErrorCode.InsufficientCredits:
      return 402;
    case ErrorCode.ApiAccessDisabled:
    case ErrorCode.AccountRestricted:
      return 403;
    case ErrorCode.NotFound:
      return 404;
    case ErrorCode.IdempotencyConflict:
    case ErrorCode.NotReviewable:
    case ErrorCode.AlreadyRecut:
      return 409;
    case ErrorCode.PayloadTooLarge:
      return 413;
    case ErrorCode.UnsupportedMediaType:
      return 415;
    case ErrorCode.RateLimitExceeded:
    case ErrorCode.TooManyActiveJobs:
    case ErrorCode.TooManyPendingResults:
      return 429;
    case ErrorCode.CapacityUnavailable:
    case ErrorCode.ToolUnavailable:
    case ErrorCode.ServiceUnavailable:
      return 503;
    case ErrorCode.InternalError:
      return 500;
  }
}
