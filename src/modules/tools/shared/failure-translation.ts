import { ImageProviderError } from '../../../core/image-provider/image-provider';
import { SourceImageError, SourceImageProblem } from '../../../core/image/source-image';
import { SourceFetchError, SourceFetchFailure } from '../../../core/outbound/source-fetcher';
import { SegmentationError } from '../../../core/segmentation/segmenter';
import { UpscalingError } from '../../../core/super-resolution/upscaler';
import { ResultErrorCode, ResultFailure, TransientResultFailure } from '../result-failure';

/** The result codes of an image the result downloads: what fails its fetch, and what fails its bytes. */
interface DownloadCodes {
  fetch: Record<SourceFetchFailure, ResultErrorCode>;
  image: Record<SourceImageProblem, ResultErrorCode>;
  /** Put before the message, naming the image when it is not the source. */
  prefix: string;
}

const SOURCE_CODES: DownloadCodes = {
  fetch: {
    [SourceFetchFailure.FetchFailed]: ResultErrorCode.SourceFetchFailed,
    [SourceFetchFailure.Blocked]: ResultErrorCode.SourceBlocked,
    [SourceFetchFailure.TooLarge]: ResultErrorCode.SourceTooLarge,
  },
  image: {
    [SourceImageProblem.NotImage]: ResultErrorCode.SourceNotImage,
    [SourceImageProblem.TooLarge]: ResultErrorCode.SourceTooLarge,
  },
  prefix: '',
};

const BACKGROUND_CODES: DownloadCodes = {
  fetch: {
    [SourceFetchFailure.FetchFailed]: ResultErrorCode.BackgroundFetchFailed,
    [SourceFetchFailure.Blocked]: ResultErrorCode.BackgroundBlocked,
    [SourceFetchFailure.TooLarge]: ResultErrorCode.BackgroundTooLarge,
  },
  image: {
    [SourceImageProblem.NotImage]: ResultErrorCode.BackgroundNotImage,
    [SourceImageProblem.TooLarge]: ResultErrorCode.BackgroundTooLarge,
  },
  prefix: 'The background image: ',
};

/** A download or decoding problem under `codes`: retried when the fetch may pass, at once otherwise. */
function asDownloadFailure(error: unknown, codes: DownloadCodes): unknown {
  if (error instanceof SourceFetchError) {
    const code = codes.fetch[error.failure];
    const message = codes.prefix + error.message;
    return error.retryable
      ? new TransientResultFailure(code, message, { cause: error })
      : new ResultFailure(code, message, { cause: error });
  }
  if (error instanceof SourceImageError)
    return new ResultFailure(codes.image[error.problem], codes.prefix + error.message, { cause: error });
  return error;
}

/** A download or decoding problem of the source as the result failure BullMQ and the client see. */
export const asSourceFailure = (error: unknown): unknown => asDownloadFailure(error, SOURCE_CODES);

/**
 * A background photo's download or decoding problem, with the background's own codes (so a
 * client can tell a broken background from a broken product photo); retried like a source's.
 */
export const asBackgroundFailure = (error: unknown): unknown => asDownloadFailure(error, BACKGROUND_CODES);

/**
 * A segmenter's failure as the result's: an outside service's is `provider_error`, ours
 * `processing_failed`; retried by BullMQ when trying again may help.
 */
export function asSegmentationFailure(error: unknown): unknown {
  if (!(error instanceof SegmentationError)) return error;
  const code = error.remote ? ResultErrorCode.ProviderError : ResultErrorCode.ProcessingFailed;
  return error.retryable
    ? new TransientResultFailure(code, error.message, { cause: error })
    : new ResultFailure(code, error.message, { cause: error });
}

/** The upscaler's model could not load: `processing_failed`, retried by BullMQ, since a later attempt may load it. */
export function asUpscalingFailure(error: unknown): unknown {
  if (!(error instanceof UpscalingError)) return error;
  return new TransientResultFailure(ResultErrorCode.ProcessingFailed, error.message, { cause: error });
}

/**
 * A provider's failure as the result's. The provider has already retried what was worth
 * retrying (429 and 5xx, within its deadline), so the result fails at once and its credits go back.
 */
export function asProviderFailure(error: unknown): unknown {
  if (!(error instanceof ImageProviderError)) return error;
  return new ResultFailure(
    error.code === 'timeout' ? ResultErrorCode.Timeout : ResultErrorCode.ProviderError,
    error.message,
    { cause: error },
  );
}

/**
 * Any failure of a result's pipeline as the result's: the source's, the segmenter's, the
 * upscaler's or the provider's with their codes; anything else as it is (BullMQ retries it, and the result fails
 * `processing_failed` after the last attempt).
 */
export function asResultFailure(error: unknown): unknown {
  return asProviderFailure(asUpscalingFailure(asSegmentationFailure(asSourceFailure(error))));
}

/** What a live result that needs a cut-out says on a deployment without a segmenter. */
export const NO_SEGMENTER =
  'needs background removal, which this deployment does not offer (SEGMENTER is none); the result was not charged';

/** What a live result that asks for `upscale` says on a deployment without a super-resolution model. */
export const NO_UPSCALER =
  'needs the super-resolution model, which this deployment does not offer (UPSCALER is none); ' +
  'the result was not charged';

/** What a live result that needs generated pixels says on a deployment without a provider. */
export const NO_PROVIDER = 'needs an image provider, which this deployment does not offer (IMAGE_PROVIDER is none)';
