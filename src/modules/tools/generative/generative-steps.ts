import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import { encode, encodeThumbnail } from '../../../core/image/pipeline-steps';
import type { RawImage, Size } from '../../../core/image/raw-image';
import { asSegmentationFailure } from '../background-removal/segmentation-failures';
import { asResultFailure } from '../sources/source-failures';
import type { OutputFormat, ToolOutput } from '../tool-runner';
import { asProviderFailure } from './provider-failures';

/**
 * The steps every composing tool (AI edit, scenes, generation, ads) shares around its own
 * pipeline: how large the photo is decoded, how a failure becomes the result's, and the encoded
 * result with its thumbnail (their limits are `resultLimits`, as for every tool).
 */

/** The source decoded at its own size, or scaled down so its longer side is `longSide`. */
export function photoPlan(source: Size, longSide: number): GeometryPlan {
  const factor = Math.min(1, longSide / Math.max(source.width, source.height));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
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
