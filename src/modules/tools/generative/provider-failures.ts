import { ImageProviderError } from '../../../core/image-provider/image-provider';
import { ResultErrorCode } from '../../jobs/job-status';
import { ResultFailure } from '../tool-runner';

/**
 * A provider's failure as the result's. The provider has already retried what was worth
 * retrying (429 and 5xx, within its deadline), so the result fails at once and its credits go back.
 */
export function asProviderFailure(error: unknown): unknown {
  if (!(error instanceof ImageProviderError)) return error;
  return new ResultFailure(error.code === 'timeout' ? ResultErrorCode.Timeout : ResultErrorCode.ProviderError, error.message);
}

/** What a live result that needs generated pixels says on a deployment without a provider. */
export const NO_PROVIDER = 'needs an image provider, which this deployment does not offer (IMAGE_PROVIDER is none)';
