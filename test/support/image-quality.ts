/**
 * Full-reference image quality on luma, as super-resolution papers report it: PSNR and SSIM of a
 * result against the original it should reproduce, both images the same size.
 *
 * Luma is BT.601 full range, Y = 0.299 R + 0.587 G + 0.114 B, on 0..255 (alpha ignored).
 *
 * SSIM is Wang, Bovik, Sheikh and Simoncelli's (IEEE TIP 2004) in its standard form: local means,
 * variances and covariance under an 11 x 11 Gaussian window of sigma 1.5, constants
 * C1 = (0.01 L)^2 and C2 = (0.03 L)^2 with L = 255, averaged over every window position that lies
 * wholly inside the image (the paper's ssim_index.m with filter2 'valid'; no downscaling first).
 */

export interface PixelImage {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

export function luma(image: PixelImage): Float64Array {
  const { data, channels } = image;
  const values = new Float64Array(image.width * image.height);
  for (let i = 0; i < values.length; i++) {
    values[i] = 0.299 * data[i * channels] + 0.587 * data[i * channels + 1] + 0.114 * data[i * channels + 2];
  }
  return values;
}

function sameSize(a: PixelImage, b: PixelImage): void {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`Images of ${a.width} x ${a.height} and ${b.width} x ${b.height} cannot be compared`);
  }
}

/** Peak signal-to-noise ratio of `result` against `original`, in dB, on luma with a peak of 255. */
export function psnr(original: PixelImage, result: PixelImage): number {
  sameSize(original, result);
  const x = luma(original);
  const y = luma(result);
  let squares = 0;
  for (let i = 0; i < x.length; i++) squares += (x[i] - y[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (squares / x.length));
}

const WINDOW = 11;
const SIGMA = 1.5;
const C1 = (0.01 * 255) ** 2;
const C2 = (0.03 * 255) ** 2;

/** The normalised 1-D Gaussian whose outer product is the 11 x 11 window. */
const KERNEL = (() => {
  const half = (WINDOW - 1) / 2;
  const weights = Array.from({ length: WINDOW }, (_, i) => Math.exp(-((i - half) ** 2) / (2 * SIGMA * SIGMA)));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
})();

/** `values` under the Gaussian window at every position where it fits inside: (w - 10) x (h - 10) values. */
function windowed(values: Float64Array, width: number, height: number): Float64Array {
  const outWidth = width - WINDOW + 1;
  const outHeight = height - WINDOW + 1;
  const rows = new Float64Array(outWidth * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < outWidth; x++) {
      let sum = 0;
      for (let k = 0; k < WINDOW; k++) sum += KERNEL[k] * values[y * width + x + k];
      rows[y * outWidth + x] = sum;
    }
  }
  const result = new Float64Array(outWidth * outHeight);
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      let sum = 0;
      for (let k = 0; k < WINDOW; k++) sum += KERNEL[k] * rows[(y + k) * outWidth + x];
      result[y * outWidth + x] = sum;
    }
  }
  return result;
}

/** Mean structural similarity of `result` to `original` on luma (1 when identical). */
export function ssim(original: PixelImage, result: PixelImage): number {
  sameSize(original, result);
  const { width, height } = original;
  const x = luma(original);
  const y = luma(result);
  const product = (a: Float64Array, b: Float64Array) => a.map((value, i) => value * b[i]);
  const meanX = windowed(x, width, height);
  const meanY = windowed(y, width, height);
  const meanXX = windowed(product(x, x), width, height);
  const meanYY = windowed(product(y, y), width, height);
  const meanXY = windowed(product(x, y), width, height);
  let total = 0;
  for (let i = 0; i < meanX.length; i++) {
    const mx = meanX[i];
    const my = meanY[i];
    const varianceX = meanXX[i] - mx * mx;
    const varianceY = meanYY[i] - my * my;
    const covariance = meanXY[i] - mx * my;
    total += ((2 * mx * my + C1) * (2 * covariance + C2)) / ((mx * mx + my * my + C1) * (varianceX + varianceY + C2));
  }
  return total / meanX.length;
}
