import { readFile } from 'node:fs/promises';
import { imageTypeOfFileName, sniffImageType } from './content-type';
import { ImageJobsApiError, JobWaitTimeoutError } from './errors';
import { readEventStream, type LiveEvent } from './event-stream';
import type { paths } from './generated/openapi';
import { HttpTransport, type HttpAnswer, type HttpCall } from './http-transport';
import { newIdempotencyKey } from './idempotency';
import { nextPollDelayMs, type RateLimitInfo } from './rate-limit';
import { sleep } from './retry';
import {
  isTerminalJobStatus,
  type AccountInfo,
  type AccountSettings,
  type AdCreateRequest,
  type CreateEndpoint,
  type CreateRequest,
  type CreateResponse,
  type CreatedJob,
  type CreatedProductPhotoJob,
  type Enhancement,
  type ImageAiEditRequest,
  type ImageEditRequest,
  type ImageGenerateRequest,
  type JobDetail,
  type JobList,
  type JsonResponse,
  type Ledger,
  type LedgerQuery,
  type ListJobsQuery,
  type ProductPhotoJobRequest,
  type ProductPhotoPresets,
  type ProductPhotoPresetsQuery,
  type RemoveBackgroundRequest,
  type ReviewItemResponse,
  type ReviewDecisionRequest,
  type ReviewList,
  type ReviewListQuery,
  type ReviewSummary,
  type SceneCreateRequest,
  type ToolCatalog,
  type Redelivery,
  type Usage,
  type UsageQuery,
  type WebhookDeliveriesQuery,
  type WebhookDeliveryList,
} from './types';
import type { Upload, UploadResponse } from './upload-types';

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export interface ImageJobsClientOptions {
  /** `sk_live_…` or `sk_sandbox_…`; default: the environment's IMAGE_JOBS_API_KEY. */
  apiKey?: string;
  /** The service's origin; default: IMAGE_JOBS_BASE_URL, else http://localhost:3000. */
  baseUrl?: string;
  /** A fetch implementation; default: Node's global fetch. */
  fetch?: typeof fetch;
  /** Automatic retries of one call after a network failure, a 5xx, or a 429/503 with Retry-After; default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this (seconds) is not waited out automatically; the error is thrown. Default 60. */
  maxRetryAfterSeconds?: number;
  /** Per attempt, in ms; default 60 000. */
  timeoutMs?: number;
  userAgent?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sent as `X-Request-Id` (1 to 160 of `A-Z a-z 0-9 . _ : -`), to find the request in the service's logs. */
  requestId?: string;
}

export interface CreateOptions extends RequestOptions {
  /**
   * The `Idempotency-Key`; generated when absent. Automatic retries of the call reuse it, and so may you: keep it
   * (`newIdempotencyKey()`) to repeat a create after a crash, or take it from the error a failed create throws.
   */
  idempotencyKey?: string;
}

export interface WaitForJobOptions {
  /** Give up (JobWaitTimeoutError) after this long; default 30 minutes. The job itself goes on. */
  timeoutMs?: number;
  /** The shortest wait between two polls; default 2000. The polling limit can make it longer, never shorter. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Called with every status read, finished or not. */
  onUpdate?: (job: JobDetail) => void;
}

export interface UploadOptions {
  /** The image's type; default: read from its first bytes, then a Blob's type, then the file name's extension. */
  contentType?: string;
  /**
   * Sent as `Idempotency-Key`: the service answers a repeat (same key, type and bytes) with the upload the first
   * request stored, so the upload is retried after a network failure too. Without one, it is not.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type CancelResponse = JsonResponse<paths['/api/v1/jobs/{jobId}/cancel']['post'], 200>;

/**
 * A typed client of the image job service's public API: one method per endpoint, request and answer types generated
 * from the service's OpenAPI document. Failures are `ImageJobsApiError` (an answer outside 2xx, with the envelope's
 * `code`, `details` and `requestId`) or `ImageJobsNetworkError` (no answer).
 */
export class ImageJobsClient {
  /** The `RateLimit-*` headers of the latest answer that carried them (creates, cancels and polls have some). */
  lastRateLimit: RateLimitInfo | undefined;
  /** The `X-Request-Id` of the latest answer. */
  lastRequestId: string | undefined;

  private readonly http: HttpTransport;

  constructor(options: ImageJobsClientOptions = {}) {
    const fetchImplementation = options.fetch ?? globalThis.fetch;
    this.http = new HttpTransport({
      apiKey: options.apiKey ?? process.env.IMAGE_JOBS_API_KEY,
      baseUrl: options.baseUrl ?? process.env.IMAGE_JOBS_BASE_URL ?? DEFAULT_BASE_URL,
      // Called unbound, as the global is: some fetch implementations check `this`.
      fetch: (input, init) => fetchImplementation(input, init),
      userAgent: options.userAgent ?? '@image-jobs/client',
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
      timeoutMs: options.timeoutMs ?? 60_000,
      onAnswer: (answer) => {
        if (answer.rateLimit) this.lastRateLimit = answer.rateLimit;
        this.lastRequestId = answer.headers.get('x-request-id') ?? this.lastRequestId;
      },
    });
  }

  /** `GET /api/v1/tools`: the tools, their credit costs and whether they are available (public). */
  catalog(options?: RequestOptions): Promise<ToolCatalog> {
    return this.json({ method: 'GET', target: '/api/v1/tools', authenticated: false, retry: 'any', ...options });
  }

  /** `GET /api/v1/product-photo-presets`: the presets `createProductPhotoJob` accepts (public). */
  productPhotoPresets(query?: ProductPhotoPresetsQuery, options?: RequestOptions): Promise<ProductPhotoPresets> {
    const target = '/api/v1/product-photo-presets';
    return this.json({ method: 'GET', target, query, authenticated: false, retry: 'any', ...options });
  }

  /** `GET /api/v1/account`: the key's account, its credits and the key itself. */
  account(options?: RequestOptions): Promise<AccountInfo> {
    return this.json({ method: 'GET', target: '/api/v1/account', authenticated: true, retry: 'any', ...options });
  }

  /** `PATCH /api/v1/account`: changes the account's settings (its review threshold); answers as `account()`. */
  updateAccount(body: AccountSettings, options?: RequestOptions): Promise<AccountInfo> {
    return this.json({
      method: 'PATCH',
      target: '/api/v1/account',
      json: body,
      authenticated: true,
      retry: 'any',
      ...options,
    });
  }

  /**
   * `GET /api/v1/reviews`: one page of the account's flagged cut-outs in the key's environment, newest completed
   * first (`pending` ones unless `state` says otherwise); pass `next_cursor` as `cursor` for the next.
   */
  listReviews(query?: ReviewListQuery, options?: RequestOptions): Promise<ReviewList> {
    return this.json({
      method: 'GET',
      target: '/api/v1/reviews',
      query,
      authenticated: true,
      retry: 'any',
      ...options,
    });
  }

  /** `GET /api/v1/reviews/summary`: how many flagged cut-outs are pending, and the review threshold. */
  reviewSummary(options?: RequestOptions): Promise<ReviewSummary> {
    const target = '/api/v1/reviews/summary';
    return this.json({ method: 'GET', target, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `GET /api/v1/reviews/{resultId}`: one completed cut-out with its review, flagged or not; how a re-cut's
   * `replaces_result_id` and `replaced_by_result_id` are followed.
   */
  review(resultId: string, options?: RequestOptions): Promise<ReviewItemResponse> {
    const target = `/api/v1/reviews/${encodeURIComponent(resultId)}`;
    return this.json({ method: 'GET', target, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `POST /api/v1/reviews/{resultId}/decision`: accepts or rejects a completed cut-out. The same decision and note
   * again changes nothing, so it is retried like a read.
   */
  decideReview(resultId: string, body: ReviewDecisionRequest, options?: RequestOptions): Promise<ReviewItemResponse> {
    const target = `/api/v1/reviews/${encodeURIComponent(resultId)}/decision`;
    return this.json({ method: 'POST', target, json: body, authenticated: true, retry: 'any', ...options });
  }

  /** `POST /api/v1/remove-background` */
  removeBackground(body: RemoveBackgroundRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('remove-background', body, options);
  }

  /** `POST /api/v1/image/edit` */
  editImage(body: ImageEditRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('image/edit', body, options);
  }

  /** `POST /api/v1/image/ai-edit` */
  aiEditImage(body: ImageAiEditRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('image/ai-edit', body, options);
  }

  /** `POST /api/v1/scene/create` */
  createScene(body: SceneCreateRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('scene/create', body, options);
  }

  /** `POST /api/v1/image/generate` */
  generateImage(body: ImageGenerateRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('image/generate', body, options);
  }

  /** `POST /api/v1/ad/create` */
  createAd(body: AdCreateRequest, options?: CreateOptions): Promise<CreatedJob> {
    return this.createJob('ad/create', body, options);
  }

  /** `POST /api/v1/product-photo-jobs`; the job is read with `getEnhancement` or `getJob`. */
  createProductPhotoJob(body: ProductPhotoJobRequest, options?: CreateOptions): Promise<CreatedProductPhotoJob> {
    return this.createJob('product-photo-jobs', body, options);
  }

  /**
   * Any create endpoint by its path under /api/v1 (`'remove-background'`, `'image/edit'`, ...), with the body that
   * endpoint takes. Sends an `Idempotency-Key` (generated unless given) and reuses it for every automatic retry.
   */
  createJob<E extends CreateEndpoint>(
    endpoint: E,
    body: CreateRequest<E>,
    { idempotencyKey = newIdempotencyKey(), ...options }: CreateOptions = {},
  ): Promise<CreateResponse<E>> {
    return this.json({
      method: 'POST',
      target: `/api/v1/${endpoint}`,
      json: body,
      idempotencyKey,
      authenticated: true,
      retry: 'any',
      ...options,
    });
  }

  /** `GET /api/v1/jobs`: one page of the key's jobs, newest first; pass `next_cursor` as `cursor` for the next. */
  listJobs(query?: ListJobsQuery, options?: RequestOptions): Promise<JobList> {
    return this.json({ method: 'GET', target: '/api/v1/jobs', query, authenticated: true, retry: 'any', ...options });
  }

  /** `GET /api/v1/jobs/{jobId}`: the job and every result. Counts against the polling limit. */
  getJob(jobId: string, options?: RequestOptions): Promise<JobDetail> {
    return this.json({ method: 'GET', target: jobPath(jobId), authenticated: true, retry: 'any', ...options });
  }

  /** `POST /api/v1/jobs/{jobId}/cancel`: results not yet started are cancelled and their credits released. */
  cancelJob(jobId: string, options?: RequestOptions): Promise<CancelResponse> {
    const target = `${jobPath(jobId)}/cancel`;
    return this.json({ method: 'POST', target, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `GET /api/v1/account/ledger`: one page of the account's credit ledger, newest first, each entry with the balance
   * it left; pass `next_cursor` as `cursor` for the next. Counts against the polling limit.
   */
  ledger(query?: LedgerQuery, options?: RequestOptions): Promise<Ledger> {
    const target = '/api/v1/account/ledger';
    return this.json({ method: 'GET', target, query, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `GET /api/v1/account/usage`: credits used and results completed and failed by UTC day and by tool, for the key's
   * environment (`from` and `to` as YYYY-MM-DD; the last 30 days by default). Counts against the polling limit.
   */
  usage(query?: UsageQuery, options?: RequestOptions): Promise<Usage> {
    const target = '/api/v1/account/usage';
    return this.json({ method: 'GET', target, query, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `GET /api/v1/webhook-deliveries`: one page of the key's webhook deliveries, newest first, each with every attempt.
   * Counts against the polling limit.
   */
  listWebhookDeliveries(query?: WebhookDeliveriesQuery, options?: RequestOptions): Promise<WebhookDeliveryList> {
    const target = '/api/v1/webhook-deliveries';
    return this.json({ method: 'GET', target, query, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `POST /api/v1/webhook-events/{eventId}/redeliver`: the event again (same id and body) as a new delivery. Safe to
   * repeat, so it is retried like a read. Counts against the create limit.
   */
  redeliverWebhookEvent(eventId: string, options?: RequestOptions): Promise<Redelivery> {
    const target = `/api/v1/webhook-events/${encodeURIComponent(eventId)}/redeliver`;
    return this.json({ method: 'POST', target, authenticated: true, retry: 'any', ...options });
  }

  /**
   * `GET /api/v1/events`: the status changes of the key's jobs and results as they happen, as server-sent events,
   * without spending the polling limit. The stream ends when the server closes it (after a `closing` event, or a
   * lost connection: reconnect and re-read what you show) or when `signal` aborts.
   */
  async *events(options?: RequestOptions): AsyncGenerator<LiveEvent> {
    const body = await this.http.openStream({
      method: 'GET',
      target: '/api/v1/events',
      authenticated: true,
      retry: 'refused',
      ...options,
    });
    yield* readEventStream(body);
  }

  /** `GET /api/v1/product-image-enhancements/{enhancementId}`: a product photo job, item by item. */
  getEnhancement(enhancementId: string, options?: RequestOptions): Promise<Enhancement> {
    const target = `/api/v1/product-image-enhancements/${encodeURIComponent(enhancementId)}`;
    return this.json({ method: 'GET', target, authenticated: true, retry: 'any', ...options });
  }

  /**
   * Polls `GET /jobs/{jobId}` until the job is finished (completed, partially_completed, failed or cancelled) and
   * returns it. Never polls faster than `intervalMs`, nor than the polling limit allows for good (the pace comes from
   * each answer's `RateLimit-*` headers; see `nextPollDelayMs`); a 429 is waited out for its `Retry-After`.
   *
   * @throws JobWaitTimeoutError when the next poll would come after `timeoutMs`
   */
  async waitForJob(
    jobId: string,
    { timeoutMs = 30 * 60_000, intervalMs = 2000, signal, onUpdate }: WaitForJobOptions = {},
  ): Promise<JobDetail> {
    const deadline = Date.now() + timeoutMs;
    let last: JobDetail | undefined;
    for (;;) {
      let delayMs: number;
      try {
        const answer = await this.http.send({
          method: 'GET',
          target: jobPath(jobId),
          authenticated: true,
          retry: 'server-errors',
          signal,
        });
        last = parseJson<JobDetail>(answer);
        onUpdate?.(last);
        if (isTerminalJobStatus(last.job.status)) return last;
        delayMs = nextPollDelayMs(intervalMs, answer.rateLimit);
      } catch (error) {
        if (!(error instanceof ImageJobsApiError) || error.status !== 429 || error.retryAfterSeconds === undefined) {
          throw error;
        }
        delayMs = Math.max(intervalMs, error.retryAfterSeconds * 1000);
      }
      if (Date.now() + delayMs > deadline) throw new JobWaitTimeoutError(jobId, timeoutMs, last);
      await sleep(delayMs, signal);
    }
  }

  /**
   * `POST /api/v1/uploads`: sends a source image (a file path, or its bytes) and returns the upload, whose
   * `image_url` (`upload://…`) any create endpoint takes wherever a source image URL goes. Retried after a 429 or
   * 503, which store nothing; after a network failure only with `options.idempotencyKey` (without one, the image
   * may be stored already and a retry would store it twice).
   */
  async upload(file: string | Buffer | Uint8Array | Blob, options: UploadOptions = {}): Promise<Upload> {
    let bytes: Uint8Array;
    let declaredType: string | undefined;
    if (typeof file === 'string') {
      bytes = await readFile(file);
      declaredType = imageTypeOfFileName(file);
    } else if (file instanceof Blob) {
      bytes = new Uint8Array(await file.arrayBuffer());
      declaredType = file.type || undefined;
    } else {
      bytes = file;
    }
    const contentType = options.contentType ?? sniffImageType(bytes) ?? declaredType;
    if (!contentType) {
      throw new TypeError('Cannot tell the image type from its bytes or its name: pass options.contentType');
    }
    const response = await this.json<UploadResponse>({
      method: 'POST',
      target: '/api/v1/uploads',
      bytes,
      contentType,
      idempotencyKey: options.idempotencyKey,
      authenticated: true,
      retry: options.idempotencyKey ? 'any' : 'refused',
      signal: options.signal,
    });
    return response.upload;
  }

  /**
   * The bytes behind a `result_url` or `thumbnail_url`. Those URLs are signed, so the API key is not sent with them.
   */
  async download(url: string, options?: RequestOptions): Promise<Buffer> {
    const answer = await this.http.send({ method: 'GET', target: url, authenticated: false, retry: 'any', ...options });
    return answer.body;
  }

  private async json<T>(call: HttpCall): Promise<T> {
    return parseJson<T>(await this.http.send(call));
  }
}

function jobPath(jobId: string): string {
  return `/api/v1/jobs/${encodeURIComponent(jobId)}`;
}

function parseJson<T>(answer: HttpAnswer): T {
  try {
    return JSON.parse(answer.body.toString('utf8')) as T;
  } catch {
    throw new ImageJobsApiError({
      status: answer.status,
      code: 'unexpected_response',
      message: `HTTP ${answer.status}: the answer is not JSON`,
      requestId: answer.headers.get('x-request-id') ?? undefined,
    });
  }
}
