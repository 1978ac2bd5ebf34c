import { Logger } from '@nestjs/common';
import OpenAI, { APIConnectionError, APIError, toFile, type ClientOptions } from 'openai';
import sharp from 'sharp';
import { BlockedDestinationError } from '../outbound/address-policy';
import type { CustomerDestinations } from '../outbound/customer-destinations';
import { createGuardedFetch, type FetchFunction } from '../outbound/guarded-fetch';
import { asSentence, describeNetworkFailure } from '../outbound/network-failure';
import type { OperatorDestination } from '../outbound/operator-destination';
import type { OutboundHttps } from '../outbound/outbound-https';
import {
  ImageProviderError,
  type ImageProvider,
  type ProviderEdit,
  type ProviderGeneration,
  type ProviderShape,
} from './image-provider';

export interface OpenAiImageProviderSettings {
  apiKey: string;
  /** The API's base URL, ending in `/v1` for OpenAI itself. */
  baseUrl: string;
  model: string;
  /** One deadline for a whole call: every attempt, the waits between them and an image download. */
  timeoutSeconds: number;
  /** Retries after a 429, a 5xx or a failed connection, each after the provider's Retry-After. */
  maxRetries: number;
}

/** The sizes the OpenAI images API renders (gpt-image-1); the pipelines fit the result to the ratio asked for. */
const SIZES: Readonly<Record<ProviderShape, '1024x1024' | '1536x1024' | '1024x1536'>> = {
  square: '1024x1024',
  landscape: '1536x1024',
  portrait: '1024x1536',
};

/** Largest image downloaded when the provider answers with a URL (25 MiB). */
const MAX_IMAGE_BYTES = 25 * 1024 * 1024;

/** What `ImageProvider` promises its callers. */
const IMAGE_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp']);

/** A provider's error code, shown only when it is a plain identifier (it never carries the prompt or the key). */
const ERROR_CODE = /^[a-z0-9_.-]{1,64}$/i;

type Operation = 'generation' | 'edit';

/** How an OpenAI-compatible provider is named in logs and the catalog, e.g. `openai (gpt-image-1)`. */
export const openAiDescription = (model: string): string => `openai (${model})`;

/**
 * The OpenAI images API (or a server speaking it) through the official client. The API at the
 * base URL is an operator destination: reached at its configured origin whatever address it
 * resolves to, with no OUTBOUND_ALLOWLIST entry (see `OperatorDestination`). An image URL the
 * provider answers with is another matter: a third party chose it, so one on any other origin
 * is fetched as a customer URL is, under the address policy, and cannot reach a private host
 * the operator has not opened to customers. Retries on 429 and 5xx, honouring Retry-After, are
 * the client's own; one deadline covers the whole call.
 */
export class OpenAiImageProvider implements ImageProvider {
  readonly description: string;
  private readonly logger = new Logger(OpenAiImageProvider.name);
  private readonly client: OpenAI;
  /** The provider's own origin, for the API and for image URLs on it. */
  private readonly provider: OperatorDestination;
  private readonly fetch: FetchFunction;
  /** Image URLs on any other origin, under the customer address policy. */
  private readonly customer: CustomerDestinations;
  private readonly customerFetch: FetchFunction;
  private readonly timeoutMs: number;

  constructor(
    private readonly settings: OpenAiImageProviderSettings,
    outbound: OutboundHttps,
  ) {
    this.description = openAiDescription(settings.model);
    this.timeoutMs = settings.timeoutSeconds * 1000;
    this.provider = outbound.operatorDestination(new URL(settings.baseUrl));
    this.fetch = createGuardedFetch(this.provider);
    this.customer = outbound.customer;
    this.customerFetch = createGuardedFetch(outbound.customer);
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseUrl,
      // Each attempt may take the whole deadline; the deadline itself is enforced in call().
      timeout: this.timeoutMs,
      maxRetries: settings.maxRetries,
      fetch: keepingErrorCodes(this.refusingHopelessRetries(this.fetch)),
      // The client reads these from process.env when they are not given; settings come only
      // from the validated configuration.
      organization: null,
      project: null,
      webhookSecret: null,
      logger: this.clientLogger(),
      // Its debug lines carry request bodies (prompts, images); an explicit level also keeps
      // OPENAI_LOG from turning them on.
      logLevel: 'info',
    });
  }

  async generate(request: ProviderGeneration, signal: AbortSignal): Promise<Buffer> {
    const size = SIZES[request.shape];
    const { model } = this.settings;
    if (request.references.length === 0) {
      return this.call('generation', signal, (combined) =>
        this.client.images.generate({ model, prompt: request.prompt, size, n: 1 }, { signal: combined }),
      );
    }
    const images = await Promise.all(
      request.references.map((png, i) => toFile(png, `reference-${i + 1}.png`, { type: 'image/png' })),
    );
    return this.call('generation', signal, (combined) =>
      this.client.images.edit({ model, prompt: request.prompt, size, n: 1, image: images }, { signal: combined }),
    );
  }

  async edit(request: ProviderEdit, signal: AbortSignal): Promise<Buffer> {
    const image = await toFile(request.image, 'image.png', { type: 'image/png' });
    const mask = request.mask ? await toFile(request.mask, 'mask.png', { type: 'image/png' }) : undefined;
    const { model } = this.settings;
    return this.call('edit', signal, (combined) =>
      this.client.images.edit(
        { model, prompt: request.prompt, size: SIZES[request.shape], n: 1, image, mask },
        { signal: combined },
      ),
    );
  }

  /**
   * One provider call under one deadline, ending in the image's bytes. The caller's abort
   * rejects with its reason; everything else rejects with ImageProviderError.
   */
  private async call(
    operation: Operation,
    signal: AbortSignal,
    send: (signal: AbortSignal) => Promise<unknown>,
  ): Promise<Buffer> {
    signal.throwIfAborted();
    const started = Date.now();
    // A timer of our own rather than AbortSignal.timeout, so it is cleared as soon as the call
    // ends and tells the deadline apart from the caller's abort.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const combined = AbortSignal.any([signal, deadline.signal]);
    try {
      const answer = await settledOrAborted(send(combined), combined);
      const image = await checkedImage(await this.imageBytes(answer, combined));
      this.logger.debug(
        { operation, model: this.settings.model, ms: Date.now() - started },
        'image provider call succeeded',
      );
      return image;
    } catch (error) {
      signal.throwIfAborted();
      const failure = deadline.signal.aborted
        ? new ImageProviderError(
            'timeout',
            `The image provider did not answer within ${this.settings.timeoutSeconds} s.`,
          )
        : this.asProviderError(error);
      this.logger.debug(
        { operation, model: this.settings.model, ms: Date.now() - started, err: failure },
        'image provider call failed',
      );
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The encoded image an answer of the images API holds, inline (`b64_json`) or at a `url`. */
  private async imageBytes(answer: unknown, signal: AbortSignal): Promise<Buffer> {
    const first: unknown = isRecord(answer) && Array.isArray(answer.data) ? answer.data[0] : undefined;
    if (isRecord(first) && typeof first.b64_json === 'string' && first.b64_json.length > 0)
      return Buffer.from(first.b64_json, 'base64');
    if (isRecord(first) && typeof first.url === 'string') return this.download(first.url, signal);
    throw new ImageProviderError(
      'provider_error',
      'The image provider answered without an image (a malformed response).',
    );
  }

  /**
   * The image at `url`, at most MAX_IMAGE_BYTES: on the provider's own origin as the provider,
   * anywhere else as a customer URL. Messages name neither the URL's host nor its address,
   * since the provider, not the client, chose them.
   */
  private async download(url: string, signal: AbortSignal): Promise<Buffer> {
    const subject = "The image provider's image URL";
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ImageProviderError('provider_error', `${subject} is not a valid URL.`);
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      throw new ImageProviderError('provider_error', `${subject} does not use http or https.`);
    }
    const ownOrigin = this.provider.serves(target);
    const violation = ownOrigin ? null : this.customer.urlViolation(target);
    const host = "the host of the image provider's image URL";
    if (violation) throw notAllowed(host, new BlockedDestinationError(null, target.hostname, violation));
    const fetch = ownOrigin ? this.fetch : this.customerFetch;
    const response = await fetch(target, { headers: { accept: 'image/*' }, signal }).catch((error: unknown) => {
      // An abort is described by call(), which knows whether it was the deadline or the caller.
      throw signal.aborted ? error : unreachable(host, error);
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ImageProviderError('provider_error', `${subject} answered HTTP ${response.status}.`);
    }
    return readCapped(response, MAX_IMAGE_BYTES, subject);
  }

  /**
   * Any failure of the client as a message fit for API clients: never the prompt, the key or the provider's own text.
   */
  private asProviderError(error: unknown): ImageProviderError {
    if (error instanceof ImageProviderError) return error;
    // instanceof narrows to the SDK's APIError<any, any, any>, whose type arguments are `any`:
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
    if (error instanceof APIError && error.status !== undefined) return this.statusError(error.status, error);
    if (error instanceof APIConnectionError) return unreachable('the image provider', error.cause);
    // By name, not instanceof: fetch's Response parses the body in Node's main realm, whose
    // error classes are not those of a jest test's realm.
    if ((error as Error | null)?.name === 'SyntaxError') {
      return new ImageProviderError('provider_error', 'The image provider answered with malformed JSON.', {
        cause: error,
      });
    }
    return new ImageProviderError('provider_error', 'The image provider call failed.', { cause: error });
  }

  private statusError(status: number, error: APIError): ImageProviderError {
    const retried = `after ${this.settings.maxRetries} ${this.settings.maxRetries === 1 ? 'retry' : 'retries'}`;
    const wait = error.headers ? requestedWaitMs(error.headers) : null;
    if ((status === 429 || status >= 500) && wait !== null && wait > this.timeoutMs) {
      return new ImageProviderError(
        'provider_error',
        `The image provider answered HTTP ${status} and asked to wait ${Math.ceil(wait / 1000)} s, longer than a ` +
          `call may take (${this.settings.timeoutSeconds} s).`,
      );
    }
    if (status === 429)
      return new ImageProviderError(
        'provider_error',
        `The image provider is rate limiting this service (HTTP 429), still ${retried}.`,
      );
    if (status >= 500)
      return new ImageProviderError(
        'provider_error',
        `The image provider failed with HTTP ${status}, still ${retried}.`,
      );
    const code = typeof error.code === 'string' && ERROR_CODE.test(error.code) ? `, ${error.code}` : '';
    return new ImageProviderError('provider_error', `The image provider refused the request (HTTP ${status}${code}).`);
  }

  /**
   * `fetch`, except that a 429 or 5xx asking to wait longer than the whole deadline is marked
   * not to be retried (`x-should-retry: false`, which the client obeys): the client sleeps out
   * any Retry-After, however long, so the call would otherwise only end at its deadline.
   */
  private refusingHopelessRetries(fetch: FetchFunction): FetchFunction {
    return async (input, init) => {
      const response = await fetch(input, init);
      const wait = response.status === 429 || response.status >= 500 ? requestedWaitMs(response.headers) : null;
      if (wait === null || wait <= this.timeoutMs) return response;
      const headers = new Headers(response.headers);
      headers.set('x-should-retry', 'false');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    };
  }

  /** The client's log lines at debug: they tell of attempts and retries, never of prompts. */
  private clientLogger(): NonNullable<ClientOptions['logger']> {
    return {
      error: (message) => this.logger.error(message),
      warn: (message) => this.logger.warn(message),
      info: (message) => this.logger.debug(message),
      // Never called at logLevel 'info'; the type requires it.
      debug: () => undefined,
    };
  }
}

/**
 * `fetch`, except that a network error the client would not recognise as an Error (one from
 * another realm, such as a test's) reaches it as one with the same `code`, its original as the
 * cause. The client rebuilds such an error from its message alone, and the code is what says,
 * without the address in the message, how the connection failed. Anything else (an abort's
 * reason) passes unchanged.
 */
function keepingErrorCodes(fetch: FetchFunction): FetchFunction {
  return (input, init) =>
    fetch(input, init).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (error instanceof Error || typeof code !== 'string') throw error;
      throw Object.assign(new Error('The request to the image provider failed', { cause: error }), { code });
    });
}

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts. The client sleeps out
 * a Retry-After without watching the signal (it looks again only before the next attempt), so
 * without this a deadline or a cancellation would wait for the sleep to end.
 */
function settledOrAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The wait a response asks for before a retry, read as the client reads it: `retry-after-ms`, else Retry-After in
 * seconds or as a date.
 */
function requestedWaitMs(headers: Headers): number | null {
  const milliseconds = parseFloat(headers.get('retry-after-ms') ?? '');
  // Zero counts as absent, as for the client, which then reads Retry-After.
  if (!Number.isNaN(milliseconds) && milliseconds !== 0) return milliseconds;
  const retryAfter = headers.get('retry-after');
  if (!retryAfter) return null;
  const seconds = parseFloat(retryAfter);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : date - Date.now();
}

/** The body, refused when Content-Length or the bytes as they stream pass `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, subject: string): Promise<Buffer> {
  const tooLarge = () =>
    new ImageProviderError('provider_error', `${subject} answered more than ${maxBytes / (1024 * 1024)} MiB.`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    received += chunk.value.length;
    if (received > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks, received);
}

/** `bytes` when they are an image by their content (PNG, JPEG or WebP with a size), whatever any header said. */
async function checkedImage(bytes: Buffer): Promise<Buffer> {
  const metadata = await sharp(bytes)
    .metadata()
    .catch(() => null);
  if (!metadata?.format || !IMAGE_FORMATS.has(metadata.format) || !metadata.width || !metadata.height) {
    throw new ImageProviderError('provider_error', 'The image provider returned something that is not an image.');
  }
  return bytes;
}

/**
 * A connection to `subject` (said in lower case) that failed: refused by the outbound policy, or
 * a network error by its code. Built from the code, not Node's text, so neither the address
 * connected to nor anything of the request can leak into the message; the error itself is kept
 * as its cause, for the log.
 */
function unreachable(subject: string, error: unknown): ImageProviderError {
  if (error instanceof BlockedDestinationError) return notAllowed(subject, error);
  return new ImageProviderError('provider_error', asSentence(describeNetworkFailure(error, subject).reason), {
    cause: error,
  });
}

function notAllowed(subject: string, cause: BlockedDestinationError): ImageProviderError {
  return new ImageProviderError('provider_error', asSentence(`${subject} is at an address that is not allowed`), {
    cause,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
