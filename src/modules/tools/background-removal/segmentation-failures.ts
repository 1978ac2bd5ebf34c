import { SegmentationError } from '../../../core/segmentation/segmenter';
import { ResultErrorCode } from '../../jobs/job-status';
import { ResultFailure, TransientResultFailure } from '../tool-runner';

/**
 * A segmenter's failure as the result's: an outside service's is `provider_error`, ours
 * `processing_failed`; retried by BullMQ when trying again may help.
 */
export function asSegmentationFailure(error: unknown): unknown {
  if (!(error instanceof SegmentationError)) return error;
  const code = error.remote ? ResultErrorCode.ProviderError : ResultErrorCode.ProcessingFailed;
  return error.retryable ? new TransientResultFailure(code, error.message) : new ResultFailure(code, error.message);
}

/** What a live result that needs a cut-out says on a deployment without a segmenter. */
export const NO_SEGMENTER =
  'needs background removal, which this deployment does not offer (SEGMENTER is none); the result was not charged';
