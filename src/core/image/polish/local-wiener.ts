import { boxMean } from '../mask/box-filter';

/**
 * The local Wiener filter in the guided filter's form (He, Sun & Tang's self-guided filter with
 * the noise variance as its regulariser, as in Lee's local statistics filter): in each 5 x 5
 * window a pixel keeps the share of its difference from the window's mean that the noise cannot
 * explain, (variance − noise variance) / variance, and moves to the mean by the rest. A flat
 * window (all its variance is noise) becomes its mean; a window across an edge or over texture
 * (variance far above the noise) keeps its pixels; linear shading passes unchanged, since a
 * window's mean is its centre value.
 *
 * The coefficients are then averaged over the windows that cover each pixel, as the guided
 * filter does: near an edge, the windows that stay on one side smooth what the window across it
 * keeps, so noise goes down along edges too (by a third on the test photos, where Lee's filter
 * alone left it as it was). Box filters of running sums: four passes, whatever the radius.
 *
 * 5 x 5: 25 samples estimate a window's variance within about a third, enough to tell noise
 * from detail, and the averaged coefficients reach 9 x 9, taking flat noise down about 5 times.
 */
const RADIUS = 2;

/** Two arrays of at least a plane's size, reused between calls. */
export type WienerScratch = [Float32Array, Float32Array];

export const wienerScratch = (pixels: number): WienerScratch => [new Float32Array(pixels), new Float32Array(pixels)];

/** Filters `values` (a width x height plane) in place for noise of `noiseVariance`; none leaves them as they are. */
export function wienerFilter(
  values: Float32Array,
  width: number,
  height: number,
  noiseVariance: number,
  scratch: WienerScratch = wienerScratch(width * height),
): void {
  if (!(noiseVariance > 0)) return;
  const count = width * height;
  const mean = scratch[0].subarray(0, count);
  const square = scratch[1].subarray(0, count);
  for (let i = 0; i < count; i++) {
    mean[i] = values[i];
    square[i] = values[i] * values[i];
  }
  boxMean(mean, width, height, RADIUS);
  boxMean(square, width, height, RADIUS);
  // square becomes the gain a and mean the offset b of q = a·p + b, window by window.
  for (let i = 0; i < count; i++) {
    const variance = square[i] - mean[i] * mean[i];
    const gain = variance > noiseVariance ? (variance - noiseVariance) / variance : 0;
    square[i] = gain;
    mean[i] -= gain * mean[i];
  }
  boxMean(square, width, height, RADIUS);
  boxMean(mean, width, height, RADIUS);
  for (let i = 0; i < count; i++) values[i] = square[i] * values[i] + mean[i];
}
