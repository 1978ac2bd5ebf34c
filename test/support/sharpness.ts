/** Decoded pixels, any number of interleaved channels, the first three RGB. */
export interface Pixels {
  data: Buffer | Uint8Array;
  width: number;
  height: number;
  channels: number;
}

const lumaAt = (image: Pixels, x: number, y: number): number => {
  const i = (y * image.width + x) * image.channels;
  return 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];
};

/**
 * The variance of the 4-neighbour Laplacian of luma over the pixels `inside` picks (their
 * neighbours may lie outside it): the usual measure of focus, high for sharp detail, near 0 for a blur.
 */
export function laplacianVariance(image: Pixels, inside: (x: number, y: number) => boolean): number {
  let sum = 0;
  let squares = 0;
  let count = 0;
  for (let y = 1; y < image.height - 1; y++) {
    for (let x = 1; x < image.width - 1; x++) {
      if (!inside(x, y)) continue;
      const value =
        lumaAt(image, x - 1, y) +
        lumaAt(image, x + 1, y) +
        lumaAt(image, x, y - 1) +
        lumaAt(image, x, y + 1) -
        4 * lumaAt(image, x, y);
      sum += value;
      squares += value * value;
      count++;
    }
  }
  if (count === 0) throw new Error('No pixels to measure');
  const mean = sum / count;
  return squares / count - mean * mean;
}

/** The mean of each colour channel over the pixels `inside` picks. */
export function meanColour(image: Pixels, inside: (x: number, y: number) => boolean): [number, number, number] {
  const sums = [0, 0, 0];
  let count = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!inside(x, y)) continue;
      const i = (y * image.width + x) * image.channels;
      for (let c = 0; c < 3; c++) sums[c] += image.data[i + c];
      count++;
    }
  }
  if (count === 0) throw new Error('No pixels to measure');
  return [sums[0] / count, sums[1] / count, sums[2] / count];
}
