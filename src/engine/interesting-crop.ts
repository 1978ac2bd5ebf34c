import { interestingWindows, type WindowPosition } from './interesting-region';
import { cutWindow } from '../core/image/pipeline-steps';
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
