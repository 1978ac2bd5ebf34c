import type { CutoutLayers } from '../../../engine/compose/cutout-layers';
import type { ShadowStyle } from '../../../engine/compose/shadow';
import type { AlphaMask } from '../../../engine/mask/alpha-mask';
import type { RawImage } from '../../../engine/raw-image';
import type { ProductCorrections } from '../../../engine/corrections';
import type { PipelineLimits } from './pipeline-limits';

export type { ProductCorrections } from '../../../engine/corrections';

/**
 * A cut-out holds several full-size layers at once (the photo, its mask, the cleaned colours,
 * the shadow and the composite), so it takes this many shares of the pixel budget per pixel.
 */
export const CUTOUT_LAYERS = 4;

/**
 * The subject cut out of the photo, its own pixels corrected as asked, its colours cleaned at
 * soft edges, with its shadow (the engine's productLayers). The photo's pixels are given to the
 * engine: only the returned layers may be read afterwards.
 */
export function cutOut(
  photo: RawImage,
  alpha: AlphaMask,
  request: ProductCorrections & { shadow: ShadowStyle },
  limits: PipelineLimits,
): Promise<CutoutLayers> {
  return limits.engine.run('productLayers', [photo, alpha, request, limits.timeoutSeconds], [photo]);
}
