import type { RawImage } from '../../engine/raw-image';
import type { ModelScale } from './esrgan-model';

export type { ModelScale } from './esrgan-model';

/**
 * The seam between the tools and the super-resolution model: an RGB image in, the same image
 * `scale` times larger on each side out, with detail the model restores rather than interpolates.
 */
export interface Upscaler {
  /**
   * `image` (RGB) enlarged `scale` times. Rejects with UpscalingError when the model cannot run;
   * `signal` stops the work between two tiles.
   */
  enlarge(image: RawImage, scale: ModelScale, signal: AbortSignal): Promise<RawImage>;
}

/** The configured Upscaler, or null when UPSCALER is `none`. */
export const UPSCALER = Symbol('UPSCALER');

/** The model could not be prepared or loaded: trying again later may succeed. */
export class UpscalingError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = UpscalingError.name;
  }
}
