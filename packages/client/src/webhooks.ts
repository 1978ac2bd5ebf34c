import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JobStatus, ResultErrorCode, ResultReview, ResultStatus, Segmentation, ToolId } from './types';

/** The event types the service sends (spec section 6, and a review's). */
export type WebhookEventType =
  | 'image_api.result.completed'
  | 'image_api.result.failed'
  | 'image_api.job.completed'
  | 'image_api.job.failed'
  | 'image_api.job.partially_completed'
  | 'image_api.result.reviewed';

/**
 * A webhook event's body. Written here because the OpenAPI document describes requests to the service, not the
 * requests it makes; the shape is the contract's (spec section 6, contract section 11).
 */
export interface WebhookEvent {
  /** The event id, also in `X-Service-Event-Id`: the same on every retry, so a receiver can drop repeats. */
  id: string;
  type: WebhookEventType;
  created_at: string;
  job: { id: string; api: ToolId; status: JobStatus; sandbox: boolean };
  /** Present on `image_api.result.*` events. */
  result?: {
    id: string;
    external_id: string | null;
    status: Extract<ResultStatus, 'completed' | 'failed'>;
    result_url: string | null;
    thumbnail_url: string | null;
    /** A WebP preview of the source as the service read it; null when the result has none (no source, or failed). */
    source_preview_url: string | null;
    /** The cut-out's uncertainty (0 sure .. 1 unsure); null when the result is not a cut-out. */
    uncertainty?: number | null;
    /** Which model and mask post-processing made the cut-out; null when the result is not a cut-out. */
    segmentation?: Segmentation | null;
    /** True for a flagged cut-out whose review is still pending. */
    needs_review?: boolean;
    /** A completed cut-out's review (as it stands after the change, on `image_api.result.reviewed`); null otherwise. */
    review?: ResultReview | null;
    error_code?: ResultErrorCode | null;
    error_message?: string | null;
  };
}

/** Why a delivery was refused. */
export type WebhookVerificationFailure =
  'missing_headers' | 'invalid_timestamp' | 'timestamp_outside_tolerance' | 'invalid_signature' | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as Node's `IncomingHttpHeaders` (lower-case names), a plain record in any case, or fetch's `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received: parsing and re-serialising it would change the signed bytes. */
  payload: string | Buffer | Uint8Array;
  headers: WebhookHeaders;
  /**
   * The account's `whsec_…` secret; during a rotation pass both the new and the old one: a delivery signed with
   * either is accepted.
   */
  secret: string | readonly string[];
  /** How far the timestamp may be from now, either way. Default 300 s, as Standard Webhooks recommends. */
  toleranceSeconds?: number;
  /** The current time in ms, for tests. */
  now?: number;
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function signature(secret: string, signedContent: Buffer): Buffer {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(signedContent).digest();
}

/**
 * Checks a delivery the way the service signs it (contract section 11, the Standard Webhooks scheme under the
 * specification's header names): HMAC-SHA256 with the secret's base64 bytes over `<X-Service-Event-Id>.<X-Service-
 * Timestamp>.<raw body>`, sent in `X-Service-Signature` as space-separated `v1,<base64>` entries (several while a
 * rotated secret is still valid). The timestamp must be within `toleranceSeconds` of now, which stops replays of an
 * old delivery. Written out rather than taken from the `standardwebhooks` package so that the client needs no
 * runtime dependency and reads our header names directly; the tests check it against that package too.
 *
 * @returns the parsed event
 * @throws WebhookVerificationError when a header is missing, the timestamp is off or the signature does not match
 */
export function verifyWebhook({
  payload,
  headers,
  secret,
  toleranceSeconds = 300,
  now = Date.now(),
}: VerifyWebhookInput): WebhookEvent {
  const eventId = header(headers, 'x-service-event-id');
  const timestamp = header(headers, 'x-service-timestamp');
  const signatures = header(headers, 'x-service-signature');
  if (!eventId || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_headers',
      'X-Service-Event-Id, X-Service-Timestamp and X-Service-Signature are all required',
    );
  }
  if (!/^\d+$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'X-Service-Timestamp is not Unix seconds');
  }
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `X-Service-Timestamp is more than ${toleranceSeconds} s from now`,
    );
  }
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const signedContent = Buffer.concat([Buffer.from(`${eventId}.${timestamp}.`, 'utf8'), body]);
  const expected = (typeof secret === 'string' ? [secret] : secret).map((each) => signature(each, signedContent));
  const sent = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice('v1,'.length), 'base64'));
  const matches = sent.some((candidate) =>
    expected.some((digest) => candidate.length === digest.length && timingSafeEqual(candidate, digest)),
  );
  if (!matches) {
    throw new WebhookVerificationError('invalid_signature', 'No signature in X-Service-Signature matches the secret');
  }
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed payload is not JSON');
  }
  if (typeof event !== 'object' || event === null || (event as { id?: unknown }).id !== eventId) {
    throw new WebhookVerificationError('invalid_payload', 'The payload is not the event X-Service-Event-Id names');
  }
  return event as WebhookEvent;
}
