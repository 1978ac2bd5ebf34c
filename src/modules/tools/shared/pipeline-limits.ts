import type { AppConfig } from '../../../core/config/config.schema';

export interface PipelineLimits {
  maxPixels: number;
  /** libvips' own deadline for each pipeline; the worker's time limit covers the whole result. */
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** The limits of one result's pipelines: the configured pixel cap and time limit, and the result's signal. */
export function resultLimits(
  config: Pick<AppConfig, 'SOURCE_MAX_MEGAPIXELS' | 'RESULT_TIMEOUT_SECONDS'>,
  signal: AbortSignal,
): PipelineLimits & { signal: AbortSignal } {
  return { maxPixels: config.SOURCE_MAX_MEGAPIXELS * 1_000_000, timeoutSeconds: config.RESULT_TIMEOUT_SECONDS, signal };
}
