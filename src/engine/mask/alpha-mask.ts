/** A subject's opacity, one byte per pixel, row-major: 0 background .. 255 subject. */
export interface AlphaMask {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A rectangle of whole pixels. */
export interface PixelBounds {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The smallest rectangle holding every pixel whose alpha is at least `threshold`, or null when none is. */
export function subjectBounds(mask: AlphaMask, threshold = 128): PixelBounds | null {
  const { data, width, height } = mask;
  let left = width;
  let right = -1;
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let first = -1;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (data[row + x] < threshold) continue;
      if (first < 0) first = x;
      last = x;
    }
    if (first < 0) continue;
    if (top < 0) top = y;
    bottom = y;
    if (first < left) left = first;
    if (last > right) right = last;
  }
  if (top < 0) return null;
  return { left, top, width: right - left + 1, height: bottom - top + 1 };
}
