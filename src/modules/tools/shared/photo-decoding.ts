import { WHITE } from '../../../engine/compose/colour';
import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import { decodeScaled } from '../../../core/image/pipeline-steps';
import type { RawImage, Size } from '../../../engine/raw-image';
import { undecodableSource, type SourceImage } from '../../../core/image/source-image';
import type { PipelineLimits } from './pipeline-limits';
import type { ToolStep } from './tool-steps';

/** The source decoded at its own size, or scaled down so its longer side is `longSide`. */
export function photoPlan(source: Size, longSide: number): GeometryPlan {
  const factor = Math.min(1, longSide / Math.max(source.width, source.height));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
}

/** What `layers` images the size of the photo planned at `longSide` hold: a tool's share of the pixel budget. */
export function photoPixels(source: Size, longSide: number, layers: number): number {
  const { scaled } = photoPlan(source, longSide);
  return scaled.width * scaled.height * layers;
}

/**
 * The photo a cut-out (or any composition around the product) is made from, decoded at `plan`'s
 * size with any transparency flattened onto white, which is what the segmentation model was
 * trained on; or, with `keepAlpha` (a source that is its own mask), with its transparency kept.
 */
export function decodePhoto(
  source: SourceImage,
  plan: GeometryPlan,
  limits: PipelineLimits,
  { keepAlpha = false } = {},
): Promise<RawImage> {
  return decodeScaled(source, plan, {
    maxPixels: limits.maxPixels,
    flattenOnto: keepAlpha ? null : WHITE,
    timeoutSeconds: limits.timeoutSeconds,
  }).catch((error: unknown) => {
    limits.signal.throwIfAborted();
    throw undecodableSource(error);
  });
}

/**
 * The first step of a tool made around the product's photo (an ad, an AI edit, a scene): the
 * source decoded at `longSide` into `work.photo`. Named `decodeSource`, as every pipeline's first step is.
 */
export function decodeSourceAt<
  C extends { source: SourceImage; limits: PipelineLimits },
  W extends { photo: RawImage | null },
>(longSide: number): ToolStep<C, W> {
  return async function decodeSource({ source, limits }, work) {
    return { ...work, photo: await decodePhoto(source, photoPlan(source, longSide), limits) };
  };
}
