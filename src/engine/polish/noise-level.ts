import type { RawImage } from '../raw-image';
import { sampledRowStride } from './block-grid';
import { yccBuffers, yccStrip } from './ycc';

/**
 * The noise in a photo, estimated from the photo itself: Immerkær's operator (1996), the
 * difference of two Laplacians [1 -2 1; -2 4 -2; 1 -2 1], is zero on any flat or linearly
 * shaded patch and turns white noise of standard deviation σ into noise of 6σ, so
 * σ = median |response| / (0.6745 · 6) (0.6745σ is the median of |N(0, σ)|). A median rather
 * than a mean, so that edges and texture, which answer the operator too, weigh little.
 *
 * They still shift a median, so it is taken twice: the second time only over pixels whose
 * gradient (|Sobel x| + |Sobel y|, about 5.5σ on average for noise alone and rarely above
 * EDGE_FACTOR·σ) shows no edge or texture beyond what the first estimate's noise makes.
 */

/** Magnitudes are counted in bins of this width; σ's resolution is about a thirtieth of a level. */
const BIN = 1 / 8;
const BINS = 4096;
const MEDIAN_ABSOLUTE_DEVIATION = 0.6745;
const OPERATOR_GAIN = 6;
/** Noise alone: |Sobel x| + |Sobel y| has mean 5.5σ and deviation 2.9σ; past 14σ is 3 deviations out. */
const EDGE_FACTOR = 14;
/** Pixels measured at most, on every k-th row: a fixed cost at any size. */
const SAMPLED_PIXELS = 1 << 17;

/** The noise's standard deviation in luma, blue and red difference (see ycc.ts), in levels of 255. */
export type NoiseSigmas = [number, number, number];

export function noiseSigmas(image: RawImage): NoiseSigmas {
  const samples = operatorSamples(image);
  return samples.map(({ responses, gradients }) => {
    const first = medianOf(responses, () => true);
    const sigma = first / (MEDIAN_ABSOLUTE_DEVIATION * OPERATOR_GAIN);
    const second = medianOf(responses, (i) => gradients[i] <= EDGE_FACTOR * sigma);
    return second / (MEDIAN_ABSOLUTE_DEVIATION * OPERATOR_GAIN);
  }) as NoiseSigmas;
}

interface Samples {
  /** |Immerkær response| and |Sobel x| + |Sobel y| of each sampled pixel. */
  responses: Float32Array;
  gradients: Float32Array;
}

function operatorSamples(image: RawImage): Samples[] {
  const { width, height } = image;
  const stride = sampledRowStride(width, height, SAMPLED_PIXELS);
  const capacity = Math.ceil(height / stride) * width;
  const samples = [0, 1, 2].map(() => ({
    responses: new Float32Array(capacity),
    gradients: new Float32Array(capacity),
  }));
  const counts = [0, 0, 0];
  const rows = yccBuffers(3 * width);
  for (let y = 1; y < height - 1; y += stride) {
    const strip = yccStrip(image, y - 1, y + 2, rows);
    for (let k = 0; k < 3; k++) {
      const v = strip.planes[k];
      const { responses, gradients } = samples[k];
      for (let x = 1; x < width - 1; x++) {
        const i = width + x;
        const nw = v[i - width - 1];
        const n = v[i - width];
        const ne = v[i - width + 1];
        const w = v[i - 1];
        const e = v[i + 1];
        const sw = v[i + width - 1];
        const s = v[i + width];
        const se = v[i + width + 1];
        responses[counts[k]] = Math.abs(nw - 2 * n + ne - 2 * w + 4 * v[i] - 2 * e + sw - 2 * s + se);
        gradients[counts[k]] =
          Math.abs(ne + 2 * e + se - nw - 2 * w - sw) + Math.abs(sw + 2 * s + se - nw - 2 * n - ne);
        counts[k]++;
      }
    }
  }
  return samples.map(({ responses, gradients }, k) => ({
    responses: responses.subarray(0, counts[k]),
    gradients: gradients.subarray(0, counts[k]),
  }));
}

/** The median of the responses `kept` keeps (the middle of its BIN-wide bin), 0 when there are none or most are 0. */
function medianOf(responses: Float32Array, kept: (i: number) => boolean): number {
  const histogram = new Uint32Array(BINS);
  let total = 0;
  for (let i = 0; i < responses.length; i++) {
    if (!kept(i)) continue;
    histogram[Math.min(BINS - 1, Math.floor(responses[i] / BIN))]++;
    total++;
  }
  let seen = 0;
  for (let bin = 0; bin < BINS; bin++) {
    seen += histogram[bin];
    if (seen * 2 >= total) return bin === 0 ? 0 : (bin + 0.5) * BIN;
  }
  return 0;
}
