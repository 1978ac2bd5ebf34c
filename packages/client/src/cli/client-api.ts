import { ImageJobsApiError, ImageJobsClient, ImageJobsNetworkError } from '../index';
import type { CreateRequest } from '../types';
import { RequestFailedError, type JobsApi, type JobState, type RequestFailure } from './jobs-api';
import { limitKindOf, readRateLimit, type Pacing } from './pacing';
import type { CreateEndpoint } from './tool-requests';

/** The failure a client error stands for, or the error itself when it is not the client's. */
function asRequestFailure(error: unknown): unknown {
  if (error instanceof ImageJobsApiError) {
    const failure: RequestFailure = {
      status: error.status,
      code: error.code,
      message: error.message,
      retryAfterSeconds: error.retryAfterSeconds,
      details: error.details,
    };
    return new RequestFailedError(failure);
  }
  if (error instanceof ImageJobsNetworkError) {
    return new RequestFailedError({ status: 0, code: 'network_error', message: error.message });
  }
  return error;
}

/** Runs a client call, its failures turned into `RequestFailedError`s. */
export async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asRequestFailure(error);
  }
}

/**
 * A fetch that tells `pacing` the `RateLimit-*` headers of every answer, by the limit its request
 * counts against; read per request rather than from the client's `lastRateLimit`, which holds
 * whichever answer came last, whatever limit it spoke of.
 */
export function pacedFetch(pacing: Pacing, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const kind = limitKindOf((init?.method ?? 'GET').toUpperCase(), url.pathname);
    const reading = readRateLimit(response.headers);
    if (kind && reading) pacing.observe(kind, reading);
    return response;
  };
}

/**
 * The command line's face of `ImageJobsClient`. The client retries nothing itself here
 * (`maxRetries` 0): every wait is the command line's, paced and shown with its ETA.
 */
export function clientJobsApi(baseUrl: string, apiKey: string | undefined, pacing: Pacing): JobsApi {
  const client = new ImageJobsClient({
    apiKey,
    baseUrl,
    maxRetries: 0,
    fetch: pacedFetch(pacing),
    userAgent: 'image-jobs-cli',
  });
  return {
    upload: (bytes, fileName, idempotencyKey) =>
      translated(async () => {
        const upload = await client.upload(bytes, { contentType: undefined, idempotencyKey });
        return { imageUrl: upload.image_url, expiresAt: upload.expires_at };
      }).catch((error: unknown) => {
        // The client tells the type from the bytes; a file it cannot type is named in the error.
        if (error instanceof TypeError) throw new Error(`${fileName}: not an image type the service reads`);
        throw error;
      }),
    createJob: (endpoint: CreateEndpoint, body, idempotencyKey) =>
      translated(async () => {
        // The body is built from the command's flags at run time; the service validates it.
        const typedBody = body as CreateRequest<typeof endpoint>;
        const created = await client.createJob(endpoint, typedBody, { idempotencyKey });
        return { id: created.job.id };
      }),
    getJob: (id) =>
      translated(async (): Promise<JobState> => {
        const detail = await client.getJob(id);
        return {
          id: detail.job.id,
          status: detail.job.status,
          results: detail.results.map((result) => ({
            id: result.id,
            index: result.index,
            externalId: result.external_id ?? null,
            status: result.status,
            resultUrl: result.result_url ?? null,
            errorCode: result.error_code ?? null,
            errorMessage: result.error_message ?? null,
            creditsUsed: result.credits_used ?? 0,
          })),
        };
      }),
    download: (url) => translated(() => client.download(url)),
    catalog: () =>
      translated(async () =>
        (await client.catalog()).tools.map((tool) => ({
          id: tool.id,
          credits: tool.credits,
          pricingVersion: tool.pricing_version,
          optionPrices: tool.option_prices.map((option) => ({
            field: option.field,
            value: option.value,
            credits: option.credits,
            pricingVersion: option.pricing_version,
          })),
        })),
      ),
    presets: () =>
      translated(async () =>
        (await client.productPhotoPresets()).presets.map((preset) => ({
          id: preset.id,
          name: preset.name,
          operation: preset.operation,
          format: preset.format,
          width: preset.width ?? null,
          height: preset.height ?? null,
          credits: preset.credits,
          pricingVersion: preset.pricing_version,
          costKey: preset.cost_key,
        })),
      ),
  };
}
