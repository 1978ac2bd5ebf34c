import type { GeometryPlan } from '../../../core/image/geometry';
import { planeResampledToPlan, resampledToPlan } from '../../../core/image/plan-resampling';
import type { RawImage } from '../../../engine/raw-image';
import { TILE_OVERLAP } from '../../../core/super-resolution/tiling';
import type { ModelScale, Upscaler } from '../../../core/super-resolution/upscaler';
import type { PixelEngine } from '../../../engine/pixel-engine';

/**
 * Radii of the colour given to fully transparent pixels before the model sees them: 2 pixels for
 * the colour right at the visible edge, then as far as the model looks around a pixel.
 */
const TRANSPARENT_COLOUR_RADII = [2, TILE_OVERLAP];

/**
 * The `upscale` step: the source, decoded at its own size, enlarged by the super-resolution model
 * and resampled once (Lanczos 3) to the planned size, as `decodeScaled` would have resampled the
 * source itself (`cover` fills the size and cuts the overflow, centred). Transparency is kept:
 * the model enlarges the colour (transparent pixels given the colour of the visible ones near
 * them, see colourUnderTransparency), the alpha is resampled with Lanczos straight to the planned
 * size, and the two are joined.
 */
export async function superResolved(
  image: RawImage,
  geometry: GeometryPlan,
  scale: ModelScale,
  upscaler: Upscaler,
  options: { signal: AbortSignal; timeoutSeconds: number; engine: PixelEngine },
): Promise<RawImage> {
  const { signal, timeoutSeconds, engine } = options;
  if (image.channels === 3) {
    return resampledToPlan(await upscaler.enlarge(image, scale, signal), geometry, timeoutSeconds);
  }

  const { colour, alpha } = await engine.run('colourUnderTransparency', [image, TRANSPARENT_COLOUR_RADII], [image]);
  const enlarged = await upscaler.enlarge(colour, scale, signal);
  signal.throwIfAborted();
  const [resampledColour, resampledAlpha] = await Promise.all([
    resampledToPlan(enlarged, geometry, timeoutSeconds),
    planeResampledToPlan(alpha, image, geometry, timeoutSeconds),
  ]);
  return engine.run('withAlpha', [resampledColour, resampledAlpha], [resampledColour, resampledAlpha]);
}
