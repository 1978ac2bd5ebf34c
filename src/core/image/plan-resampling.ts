import sharp from 'sharp';
import type { GeometryPlan } from './geometry';
import { fromRaw, toRaw, type RawImage, type Size } from '../../engine/raw-image';

/**
 * Resampled once (Lanczos 3) to the planned size, as `decodeScaled` resamples a source: `cover`
 * fills the size and cuts the overflow, centred; otherwise the size is filled exactly.
 */
const toPlannedSize = (pipeline: sharp.Sharp, geometry: GeometryPlan, timeoutSeconds: number) =>
  pipeline.timeout({ seconds: timeoutSeconds }).resize(geometry.scaled.width, geometry.scaled.height, {
    fit: geometry.mode === 'cover' ? 'cover' : 'fill',
    position: 'centre',
    kernel: 'lanczos3',
  });

/** An image resampled to the planned size. */
export function resampledToPlan(image: RawImage, geometry: GeometryPlan, timeoutSeconds: number): Promise<RawImage> {
  return toRaw(toPlannedSize(fromRaw(image), geometry, timeoutSeconds));
}

/**
 * A one-byte-per-pixel plane (an alpha) of `size` resampled to the planned size, the same way;
 * kept one band (`b-w`) on output, where sharp would write sRGB.
 */
export function planeResampledToPlan(
  plane: Buffer,
  size: Size,
  geometry: GeometryPlan,
  timeoutSeconds: number,
): Promise<Buffer> {
  const onePlane = sharp(plane, { raw: { width: size.width, height: size.height, channels: 1 } });
  return toPlannedSize(onePlane, geometry, timeoutSeconds).toColourspace('b-w').raw().toBuffer();
}
