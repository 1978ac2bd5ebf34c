import { SourceImageError, SourceImageProblem } from '../../../core/image/source-image';
import { SourceFetchError, SourceFetchFailure } from '../../../core/outbound/source-fetcher';
import { ResultErrorCode } from '../../jobs/job-status';
import { ResultFailure, TransientResultFailure } from '../tool-runner';

const FETCH_FAILURE_CODES: Record<SourceFetchFailure, ResultErrorCode> = {
  [SourceFetchFailure.FetchFailed]: ResultErrorCode.SourceFetchFailed,
  [SourceFetchFailure.Blocked]: ResultErrorCode.SourceBlocked,
  [SourceFetchFailure.TooLarge]: ResultErrorCode.SourceTooLarge,
};

const IMAGE_PROBLEM_CODES: Record<SourceImageProblem, ResultErrorCode> = {
  [SourceImageProblem.NotImage]: ResultErrorCode.SourceNotImage,
  [SourceImageProblem.TooLarge]: ResultErrorCode.SourceTooLarge,
};

/** A download or decoding problem as the result failure BullMQ and the client see. */
export function asResultFailure(error: unknown): unknown {
  if (error instanceof SourceFetchError) {
    const code = FETCH_FAILURE_CODES[error.failure];
    return error.retryable ? new TransientResultFailure(code, error.message) : new ResultFailure(code, error.message);
  }
  if (error instanceof SourceImageError) return new ResultFailure(IMAGE_PROBLEM_CODES[error.problem], error.message);
  return error;
}

