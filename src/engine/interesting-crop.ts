import { interestingWindows, type WindowPosition } from './interesting-region';
import type { RawImage, Size } from './raw-image';

/** A window of an image and where it was cut. */
export interface CroppedImage {
  image: RawImage;
  window: WindowPosition;
}

/**
 * The `size` window of `image` at its `rank`-th most interesting place (0 the most; the last one
 * found when there are fewer): `crop`'s variants differ by rank.
 */
export function interestingCrop(image: RawImage, size: Size, rank: number): CroppedImage {
  const windows = interestingWindows(image, size, rank + 1);
  const window = windows[Math.min(rank, windows.length - 1)];
  return { image: cutWindow(image, window, size), window };
}

/** A `size` window of `image` at `position`: rows copied, nothing resampled. */
function cutWindow(image: RawImage, position: WindowPosition, size: Size): RawImage {
  const rowBytes = size.width * image.channels;
  const data = Buffer.allocUnsafe(rowBytes * size.height);
  for (let row = 0; row < size.height; row++) {
    const start = ((position.top + row) * image.width + position.left) * image.channels;
    image.data.copy(data, row * rowBytes, start, start + rowBytes);
  }
  return { data, width: size.width, height: size.height, channels: image.channels };
}
