import { UnrecoverableError } from 'bullmq';

/** Why a result failed (contract section 7). */
export enum ResultErrorCode {
  SourceFetchFailed = 'source_fetch_failed',
  SourceBlocked = 'source_blocked',
  SourceTooLarge = 'source_too_large',
  SourceNotImage = 'source_not_image',
  /** A background photo (`background.image_url`) that could not be fetched, was refused, too large or not an image. */
  BackgroundFetchFailed = 'background_fetch_failed',
  BackgroundBlocked = 'background_blocked',
  BackgroundTooLarge = 'background_too_large',
  BackgroundNotImage = 'background_not_image',
  /** `existing_alpha` `use` on a source without meaningful transparency (an extension of the contract's list). */
  SourceNotTransparent = 'source_not_transparent',
  ProcessingFailed = 'processing_failed',
  ProviderError = 'provider_error',
  Timeout = 'timeout',
  SandboxSimulatedFailure = 'sandbox_simulated_failure',
}

/**
 * A failure that retrying cannot fix (a source that is not an image, a simulated failure).
 * BullMQ fails the job at once; the code and message are what the client sees on the result,
 * and `cause`, when given, is the error behind them, for the log.
 */
export class ResultFailure extends UnrecoverableError {
  constructor(
    readonly code: ResultErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message);
    this.name = ResultFailure.name;
    // BullMQ's UnrecoverableError takes no options: the cause is set as Error's constructor would.
    if (options && 'cause' in options) {
      Object.defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true });
    }
  }
}

/**
 * A failure that may pass (a source answering 503, a reset connection): BullMQ retries with
 * backoff, and if the last attempt fails too, the result fails with this code. Its message is
 * the client's, its `cause` the log's, as with ResultFailure.
 */
export class TransientResultFailure extends Error {
  constructor(
    readonly code: ResultErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = TransientResultFailure.name;
  }
}
