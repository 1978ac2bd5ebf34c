import type { ErrorCode, JobDetail, Schemas } from './types';

/**
 * The error codes an answer can carry: the document's codes, and `unexpected_response` for an error answer that is
 * not the service's envelope (a proxy's HTML page, say).
 */
export type ApiErrorCode = ErrorCode | 'unexpected_response';

/**
 * `error.details` of the envelope. Its documented part is typed (`errors` on `invalid_request`); the other codes add
 * their own members: `required` and `available` (insufficient_credits), `restricted_until` (account_restricted),
 * `scope`, `limit` and `window_seconds` (rate_limit_exceeded).
 */
export type ApiErrorDetails = Schemas['ErrorDetailsDto'] & Record<string, unknown>;

/** An answer of the service outside 2xx, with the contract's error envelope parsed. */
export class ImageJobsApiError extends Error {
  override readonly name = 'ImageJobsApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: ApiErrorDetails;
  /** The request id of the envelope, or of the `X-Request-Id` header; quote it when asking for support. */
  readonly requestId: string | undefined;
  /** `Retry-After` in seconds, on 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;
  /** The `Idempotency-Key` a failed create was sent with: retrying with it can never create a second job. */
  readonly idempotencyKey: string | undefined;

  constructor(init: {
    status: number;
    code: ApiErrorCode;
    message: string;
    details?: ApiErrorDetails;
    requestId?: string;
    retryAfterSeconds?: number;
    idempotencyKey?: string;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/** The request never got an answer: the connection failed, was cut, or timed out. */
export class ImageJobsNetworkError extends Error {
  override readonly name = 'ImageJobsNetworkError';
  /** The `Idempotency-Key` a failed create was sent with: the job may exist; retrying with this key is safe. */
  readonly idempotencyKey: string | undefined;

  constructor(message: string, options: { cause?: unknown; idempotencyKey?: string } = {}) {
    super(message, { cause: options.cause });
    this.idempotencyKey = options.idempotencyKey;
  }
}

/** `waitForJob` ran out of time before the job finished; the job goes on. */
export class JobWaitTimeoutError extends Error {
  override readonly name = 'JobWaitTimeoutError';

  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
    /** The job as last read, if a read succeeded. */
    readonly lastSeen: JobDetail | undefined,
  ) {
    super(`Job ${jobId} did not finish within ${timeoutMs} ms (last status: ${lastSeen?.job.status ?? 'unknown'})`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error an answer outside 2xx stands for. `bodyText` is the raw body: the contract's envelope
 * `{ error: { code, message, details? }, request_id }` when the service answered, anything at all when something in
 * front of it did. A code this client does not know yet (a newer service) is kept as sent.
 */
export function apiErrorFromResponse(init: {
  status: number;
  bodyText: string;
  headerRequestId?: string;
  retryAfterSeconds?: number;
  idempotencyKey?: string;
}): ImageJobsApiError {
  let envelope: unknown;
  try {
    envelope = JSON.parse(init.bodyText);
  } catch {
    envelope = undefined;
  }
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : undefined;
  const requestId =
    isRecord(envelope) && typeof envelope.request_id === 'string' ? envelope.request_id : init.headerRequestId;
  const common = {
    status: init.status,
    requestId,
    retryAfterSeconds: init.retryAfterSeconds,
    idempotencyKey: init.idempotencyKey,
  };
  if (!error || typeof error.code !== 'string') {
    return new ImageJobsApiError({
      ...common,
      code: 'unexpected_response',
      message: `HTTP ${init.status}: the answer is not the service's error envelope`,
      details: { body: init.bodyText.slice(0, 500) },
    });
  }
  return new ImageJobsApiError({
    ...common,
    // Kept as sent even when this version does not know it, so a newer service's code reaches the caller.
    code: error.code as ApiErrorCode,
    message: typeof error.message === 'string' ? error.message : `HTTP ${init.status} ${error.code}`,
    details: isRecord(error.details) ? error.details : {},
  });
}
