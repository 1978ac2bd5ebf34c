import sharp from 'sharp';
import type { GeometryPlan } from '../../../core/image/geometry';
import { fromRaw, toRaw, type RawImage, type Size } from '../../../core/image/raw-image';
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
  const resample = (pipeline: sharp.Sharp) =>
    pipeline.timeout({ seconds: timeoutSeconds }).resize(geometry.scaled.width, geometry.scaled.height, {
      fit: geometry.mode === 'cover' ? 'cover' : 'fill',
      position: 'centre',
      kernel: 'lanczos3',
    });
  if (image.channels === 3) return toRaw(resample(fromRaw(await upscaler.enlarge(image, scale, signal))));

  const { colour, alpha } = await engine.run('colourUnderTransparency', [image, TRANSPARENT_COLOUR_RADII], [image]);
  const enlarged = await upscaler.enlarge(colour, scale, signal);
  signal.throwIfAborted();
  const [resampledColour, resampledAlpha] = await Promise.all([
    toRaw(resample(fromRaw(enlarged))),
    resample(plane(alpha, image)).toColourspace('b-w').raw().toBuffer(),
  ]);
  return engine.run('withAlpha', [resampledColour, resampledAlpha], [resampledColour, resampledAlpha]);
}

/** A one-byte-per-pixel plane as a one-band image; kept one band (`b-w`) on output, where sharp would write sRGB. */
function plane(data: Buffer, size: Size): sharp.Sharp {
  return sharp(data, { raw: { width: size.width, height: size.height, channels: 1 } });
}
