import type { AppConfig } from '../../../core/config/config.schema';
import type { PixelEngine } from '../../../engine/pixel-engine';

export interface PipelineLimits {
  maxPixels: number;
  /** libvips' own deadline for each pipeline; the worker's time limit covers the whole result. */
  timeoutSeconds: number;
  /** Aborts when the result is cancelled or out of time. */
  signal: AbortSignal;
  /** Where the pipeline's pixel steps run: the worker's thread pool, never its event loop. */
  engine: PixelEngine;
}

/** One result's pipeline limits: the configured pixel cap and time limit, the result's signal, and the engine. */
export function resultLimits(
  config: Pick<AppConfig, 'SOURCE_MAX_MEGAPIXELS' | 'RESULT_TIMEOUT_SECONDS'>,
  signal: AbortSignal,
  engine: PixelEngine,
): PipelineLimits {
  return {
    maxPixels: config.SOURCE_MAX_MEGAPIXELS * 1_000_000,
    timeoutSeconds: config.RESULT_TIMEOUT_SECONDS,
    signal,
    engine,
  };
}
