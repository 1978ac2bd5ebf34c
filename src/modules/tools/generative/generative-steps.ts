import type { AppConfig } from '../../../core/config/config.schema';
import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import { encode, encodeThumbnail } from '../../../core/image/pipeline-steps';
import type { RawImage, Size } from '../../../core/image/raw-image';
import { asSegmentationFailure } from '../background-removal/segmentation-failures';
import type { PipelineLimits } from '../image-editing/edit-pipeline';
import { asResultFailure } from '../sources/source-failures';
import type { OutputFormat, ToolOutput } from '../tool-runner';
import { asProviderFailure } from './provider-failures';

/**
 * The steps every composing tool (AI edit, scenes, generation, ads) shares around its own
 * pipeline: how large the photo is decoded, the limits its pipelines run under, how a failure
 * becomes the result's, and the encoded result with its thumbnail.
 */

/** The source decoded at its own size, or scaled down so its longer side is `longSide`. */
export function photoPlan(source: Size, longSide: number): GeometryPlan {
  const factor = Math.min(1, longSide / Math.max(source.width, source.height));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
}

/** The limits of one result's pipelines: the configured pixel cap and time limit, and the result's signal. */
export function resultLimits(config: AppConfig, signal: AbortSignal): PipelineLimits & { signal: AbortSignal } {
  return { maxPixels: config.SOURCE_MAX_MEGAPIXELS * 1_000_000, timeoutSeconds: config.RESULT_TIMEOUT_SECONDS, signal };
}

/** A failure of the source, the segmenter or the provider as the result's; anything else as it is. */
export function asComposingFailure(error: unknown): unknown {
  return asProviderFailure(asSegmentationFailure(asResultFailure(error)));
}

/** The result in its format, with its thumbnail made from the same pixels. */
export async function encodedResult(image: RawImage, format: OutputFormat): Promise<ToolOutput> {
  const [encoded, thumbnail] = await Promise.all([encode(image, format, null), encodeThumbnail(image, format, null)]);
  return { image: encoded, thumbnail, format };
}
