import type { RawImage } from '../../src/engine/raw-image';
import type { ModelScale, Upscaler } from '../../src/core/super-resolution/upscaler';

/**
 * An upscaler whose right answer is known: each pixel repeated `scale` times on both axes. It
 * records what it was asked to enlarge.
 */
export class NearestUpscaler implements Upscaler {
  readonly calls: Array<{ scale: ModelScale; width: number; height: number; channels: number }> = [];

  enlarge(image: RawImage, scale: ModelScale): Promise<RawImage> {
    this.calls.push({ scale, width: image.width, height: image.height, channels: image.channels });
    return Promise.resolve(nearestEnlargement(image, scale));
  }
}

export function nearestEnlargement(image: RawImage, scale: number): RawImage {
  const width = image.width * scale;
  const channels = image.channels;
  const data = Buffer.alloc(width * image.height * scale * channels);
  for (let y = 0; y < image.height * scale; y++) {
    for (let x = 0; x < width; x++) {
      const from = (Math.floor(y / scale) * image.width + Math.floor(x / scale)) * channels;
      image.data.copy(data, (y * width + x) * channels, from, from + channels);
    }
  }
  return { data, width, height: image.height * scale, channels };
}
