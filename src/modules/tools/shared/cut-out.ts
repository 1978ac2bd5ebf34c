import type { CutoutLayers } from '../../../core/image/compose/cutout-layers';
import { drawShadow, type ShadowStyle } from '../../../core/image/compose/shadow';
import type { AlphaMask } from '../../../core/image/mask/alpha-mask';
import { decontaminate } from '../../../core/image/mask/decontaminate';
import { applyFilters, hasFilters } from '../../../core/image/pipeline-steps';
import { polish } from '../../../core/image/polish/polish';
import type { RawImage } from '../../../core/image/raw-image';
import { analyseTone, applyTone } from '../../../core/image/tone';
import type { PipelineLimits } from './pipeline-limits';

/**
 * A cut-out holds several full-size layers at once (the photo, its mask, the cleaned colours,
 * the shadow and the composite), so it takes this many shares of the pixel budget per pixel.
 */
export const CUTOUT_LAYERS = 4;

/** Corrections applied to the product's own pixels (product photos' preservation level). */
export interface ProductCorrections {
  light: boolean;
  color: boolean;
  polish: boolean;
}

/**
 * The product's own pixels corrected as asked: the same polish, light and colour steps as
 * `image_editing`, in its order, before the cut-out is composed, so the background is never
 * corrected with it.
 */
async function corrected(photo: RawImage, corrections: ProductCorrections, limits: PipelineLimits): Promise<RawImage> {
  const image = corrections.polish ? polish(photo) : photo;
  const tone = analyseTone(image, {
    light: corrections.light,
    color: corrections.color,
    brightnessOffset: 0,
    saturationOffset: 0,
  });
  if (tone.map) applyTone(image, tone.map);
  const filters = {
    saturation: tone.saturation,
    sharpen: corrections.polish ? { sigma: 0.8, edgeGain: 1.5 } : null,
  };
  return hasFilters(filters) ? applyFilters(image, filters, limits.timeoutSeconds) : image;
}

/** The subject cut out of the photo, its colours cleaned at soft edges, with its shadow. */
export async function cutOut(
  photo: RawImage,
  alpha: AlphaMask,
  request: ProductCorrections & { shadow: ShadowStyle },
  limits: PipelineLimits,
): Promise<CutoutLayers> {
  const shadow = await drawShadow(alpha, request.shadow);
  limits.signal?.throwIfAborted();
  const colour = decontaminate(await corrected(photo, request, limits), alpha);
  return { colour, alpha, shadow };
}
