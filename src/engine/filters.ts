import type sharp from 'sharp';
import { fromRaw, toRaw, type RawImage } from './raw-image';
import { saturationMatrix } from './tone/tone';

/**
 * The sharp filters of an edit, over raw pixels: saturation and sharpening, in one pipeline of
 * their own that runs after the engine's polish and tone curves (corrections.ts).
 */

export interface SharpenStrength {
  /** Radius of the detail sharpened, in pixels. */
  sigma: number;
  /** Gain on edges; flat areas are never sharpened, so noise is not amplified. */
  edgeGain: number;
}

/** What follows the denoising of `polish` (polish/polish.ts), which runs before the tone curves. */
export interface FilterOptions {
  saturation: number;
  sharpen: SharpenStrength | null;
}

export const hasFilters = (options: FilterOptions) => options.saturation !== 1 || options.sharpen !== null;

/** Saturation and sharpening, in that order (sharp's own), in one pipeline. */
export async function applyFilters(image: RawImage, options: FilterOptions, timeoutSeconds: number): Promise<RawImage> {
  let pipeline = fromRaw(image).timeout({ seconds: timeoutSeconds });
  if (options.saturation !== 1) pipeline = pipeline.recomb(saturationMatrix(options.saturation) as sharp.Matrix3x3);
  if (options.sharpen) {
    // m1 = 0: flat areas (below x1 of local contrast) are left as they are.
    pipeline = pipeline.sharpen({ sigma: options.sharpen.sigma, m1: 0, m2: options.sharpen.edgeGain, x1: 2 });
  }
  return toRaw(pipeline);
}
