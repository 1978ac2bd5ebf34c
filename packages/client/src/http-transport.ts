import { apiErrorFromResponse, ImageJobsApiError, ImageJobsNetworkError } from './errors';
import { rateLimitOf, retryAfterSecondsOf, type RateLimitInfo } from './rate-limit';
import { isRetryableStatus, retryDelayMs, sleep } from './retry';

/**
 * Which failures a call may repeat by itself:
 * - `any`: reads, cancels and creates (a create repeats with the same Idempotency-Key, so it can never make a second
 *   job): network failures, 408, 429, 5xx;
 * - `refused`: a call that is not idempotent (an upload): only answers that say nothing was done (429, 503);
 * - `server-errors`: like `any` but a 429 is handed back to the caller, who paces itself (`waitForJob`).
 */
export type RetryPolicy = 'any' | 'refused' | 'server-errors';

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH';
  /** A path under the base URL (`/api/v1/jobs`), or an absolute URL (a signed result URL). */
  target: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  bytes?: Uint8Array;
  contentType?: string;
  authenticated: boolean;
  idempotencyKey?: string;
  requestId?: string;
  retry: RetryPolicy;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The answer's `RateLimit-*` headers, when the route is limited. */
  rateLimit: RateLimitInfo | undefined;
}

export interface HttpTransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: typeof fetch;
  userAgent: string;
  maxRetries: number;
  /** A Retry-After longer than this is not waited out by an automatic retry: the error goes to the caller. */
  maxRetryAfterSeconds: number;
  /** Per attempt, from sending the request to the end of the answer's body. */
  timeoutMs: number;
  /** Sees every answer, for the client's `lastRateLimit` and `lastRequestId`. */
  onAnswer: (answer: HttpAnswer) => void;
}

/** One HTTP exchange with the service, with its automatic retries; answers outside 2xx become typed errors. */
export class HttpTransport {
  constructor(private readonly options: HttpTransportOptions) {}

  async send(call: HttpCall): Promise<HttpAnswer> {
    for (let retry = 0; ; retry++) {
      let failure: ImageJobsApiError | ImageJobsNetworkError;
      try {
        const answer = await this.attempt(call);
        if (answer.status >= 200 && answer.status < 300) return answer;
        failure = apiErrorFromResponse({
          status: answer.status,
          bodyText: answer.body.toString('utf8'),
          headerRequestId: answer.headers.get('x-request-id') ?? undefined,
          retryAfterSeconds: retryAfterSecondsOf(answer.headers),
          idempotencyKey: call.idempotencyKey,
        });
      } catch (error) {
        if (!(error instanceof ImageJobsNetworkError)) throw error;
        failure = error;
      }
      const retryAfterSeconds = failure instanceof ImageJobsApiError ? failure.retryAfterSeconds : undefined;
      const repeat =
        retry < this.options.maxRetries &&
        mayRepeat(call.retry, failure) &&
        (retryAfterSeconds === undefined || retryAfterSeconds <= this.options.maxRetryAfterSeconds);
      if (!repeat) throw failure;
      await sleep(retryDelayMs({ retry, retryAfterSeconds }), call.signal);
    }
  }

  /**
   * Opens an answer that is read as it comes (an event stream): one attempt, with no automatic retry and no timeout
   * (a stream lasts as long as its reader wants); an answer outside 2xx is the usual typed error.
   */
  async openStream(call: HttpCall): Promise<ReadableStream<Uint8Array>> {
    let response: Response;
    try {
      response = await this.options.fetch(this.urlOf(call), {
        method: call.method,
        headers: { ...this.headersOf(call), Accept: 'text/event-stream' },
        signal: call.signal,
      });
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      const reason = error instanceof Error ? describeFetchFailure(error) : String(error);
      throw new ImageJobsNetworkError(`${call.method} ${this.urlOf(call)} failed: ${reason}`, { cause: error });
    }
    if (response.status >= 200 && response.status < 300 && response.body) return response.body;
    throw apiErrorFromResponse({
      status: response.status,
      bodyText: await response.text(),
      headerRequestId: response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds: retryAfterSecondsOf(response.headers),
    });
  }

  private async attempt(call: HttpCall): Promise<HttpAnswer> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    let response: Response;
    let body: Buffer;
    try {
      response = await this.options.fetch(this.urlOf(call), {
        method: call.method,
        headers: this.headersOf(call),
        body: call.json !== undefined ? JSON.stringify(call.json) : call.bytes,
        redirect: 'follow',
        signal,
      });
      body = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      // The caller's own abort is not a network failure: it goes back unchanged and is never retried.
      if (call.signal?.aborted) throw call.signal.reason;
      const reason = timeout.aborted
        ? `no answer within ${this.options.timeoutMs} ms`
        : error instanceof Error
          ? describeFetchFailure(error)
          : String(error);
      throw new ImageJobsNetworkError(`${call.method} ${this.urlOf(call)} failed: ${reason}`, {
        cause: error,
        idempotencyKey: call.idempotencyKey,
      });
    }
    const answer = {
      status: response.status,
      headers: response.headers,
      body,
      rateLimit: rateLimitOf(response.headers),
    };
    this.options.onAnswer(answer);
    return answer;
  }

  private urlOf(call: HttpCall): string {
    const base = /^https?:\/\//i.test(call.target)
      ? call.target
      : `${this.options.baseUrl.replace(/\/+$/, '')}${call.target}`;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.toString();
    return search ? `${base}${base.includes('?') ? '&' : '?'}${search}` : base;
  }

  private headersOf(call: HttpCall): Record<string, string> {
    const headers: Record<string, string> = { 'User-Agent': this.options.userAgent };
    if (call.json !== undefined) headers['Content-Type'] = 'application/json';
    else if (call.contentType) headers['Content-Type'] = call.contentType;
    if (call.authenticated && this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    if (call.idempotencyKey) headers['Idempotency-Key'] = call.idempotencyKey;
    if (call.requestId) headers['X-Request-Id'] = call.requestId;
    return headers;
  }
}

function mayRepeat(policy: RetryPolicy, failure: ImageJobsApiError | ImageJobsNetworkError): boolean {
  if (failure instanceof ImageJobsNetworkError) return policy !== 'refused';
  switch (policy) {
    case 'any':
      return isRetryableStatus(failure.status);
    case 'server-errors':
      return failure.status !== 429 && isRetryableStatus(failure.status);
    case 'refused':
      return failure.status === 429 || failure.status === 503;
  }
}

/** Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, a TLS error) is in its cause. */
function describeFetchFailure(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
