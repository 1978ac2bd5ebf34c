/**
 * Where generated pixels come from. The service's own pipelines decide what to ask for and
 * compose, lay out and check what comes back; a provider only paints.
 */

/** Shapes providers of the OpenAI images API render; the pipeline fits the result to the exact ratio asked for. */
export type ProviderShape = 'square' | 'landscape' | 'portrait';

export interface ProviderEdit {
  /** The image to edit, PNG. */
  image: Buffer;
  /**
   * Where the provider may paint, PNG of the image's size: transparent pixels may change, opaque
   * ones should be kept (the OpenAI images API's convention). Absent: the whole image may change.
   */
  mask?: Buffer;
  /**
   * The caller's prompt or instructions, passed through unchanged, except that the edit
   * endpoint's multipart encoding writes line breaks as CRLF, as every form encoding does.
   */
  prompt: string;
  shape: ProviderShape;
}

export interface ProviderGeneration {
  /** The caller's prompt, passed through unchanged (with references it goes as a form: see ProviderEdit). */
  prompt: string;
  /** Reference images, PNG; with any, the provider's edit endpoint is used with them as inputs. */
  references: Buffer[];
  shape: ProviderShape;
}

export interface ImageProvider {
  /** Shown in logs and the catalog, e.g. `openai (gpt-image-1)`. */
  readonly description: string;
  /** One edited image (encoded: PNG, JPEG or WebP). `signal` aborts the call. */
  edit(request: ProviderEdit, signal: AbortSignal): Promise<Buffer>;
  /** One generated image (encoded). */
  generate(request: ProviderGeneration, signal: AbortSignal): Promise<Buffer>;
}

/** The configured provider, or null when IMAGE_PROVIDER is `none`. */
export const IMAGE_PROVIDER = Symbol('IMAGE_PROVIDER');

/**
 * A provider call that failed for good: after its retries (429, 5xx), on a 4xx, on a response
 * that is malformed or not an image (`provider_error`), or past its deadline (`timeout`). The
 * message is safe to show the client: it never carries the prompt, the provider's key, where the
 * provider is (host, port, address) or Node's error text; `cause` keeps the detail for the log.
 */
export class ImageProviderError extends Error {
  constructor(
    readonly code: 'provider_error' | 'timeout',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = ImageProviderError.name;
  }
}
