import type { Cutout, SubjectHints } from '../../engine/mask/subject-hints';
import type { RawImage } from '../../engine/raw-image';

/**
 * The seam between the tools and whatever cuts subjects out: an image (and the client's hints) in,
 * the subject's alpha mask out, at the image's own size. The local models and a remote service both fit it.
 */
export interface Segmenter {
  /** Resolves once the segmenter can answer at full speed (every model this process serves is checked and warm). */
  ready(): Promise<void>;
  /**
   * The subject's mask at the image's size and how sure the segmenter is of it, keeping to the
   * client's hints when there are any, cut out by `model` (a configured model's name; undefined,
   * the default model). The cut-out's `segmentation` names the model and reportedVersion of it.
   * Rejects with SegmentationError when the segmenter fails or does not serve `model` (not
   * retryable); `signal` stops waiting for it.
   */
  segment(image: RawImage, signal: AbortSignal, hints?: SubjectHints, model?: string): Promise<Cutout>;
  /** The models this process serves and what runs each (a worker's `/health` shows them); none for a test double. */
  servedModels?(): ServedModel[];
}

/** A model this process serves, and where it runs: an execution provider, `remote`, or null until it is loaded. */
export interface ServedModel {
  model: string;
  provider: string | null;
}

/** The configured Segmenter, or null when SEGMENTER is `none`. */
export const SEGMENTER = Symbol('SEGMENTER');

/**
 * A segmenter that failed: `retryable` when trying again later may succeed (a remote 503, a
 * timeout, a model that could not load yet); `remote` when an outside service failed, which the
 * client sees as `provider_error` rather than `processing_failed`. The message is the result's
 * error message, so it says what went wrong and not where (no path, host or address); `cause`
 * keeps the original error for the log.
 */
export class SegmentationError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly remote = false,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = SegmentationError.name;
  }
}
