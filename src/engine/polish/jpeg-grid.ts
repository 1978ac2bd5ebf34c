import type { RawImage } from '../raw-image';
import { sampledRowStride, type BlockGrid } from './block-grid';
import { blockStatistics, type BlockStatistics } from './jpeg-blocks';
import { yccBuffers, yccStrip } from './ycc';

/**
 * Whether a photo was a JPEG, from its pixels alone, and how hard it was compressed: what the
 * deblocker needs and the file no longer says once decoded (it may have been converted, or
 * cropped so its blocks moved).
 *
 * 1. The grid: JPEG codes luma in 8 x 8 blocks, so neighbouring pixels differ more across the
 *    block boundaries than anywhere else. Small differences (below QUIET_STEP, so edges do not
 *    count) are summed by column position modulo 8, and by row; one phase standing out from the
 *    other seven (STAND_OUT times their median) on both axes is the grid. Colour blocks cover
 *    16 pixels (4:2:0): of the two phases modulo 16 that fit the luma grid, the one with the
 *    larger colour differences.
 * 2. The step: each block's mean is 128 + k·Q/8 for the integer k the encoder kept and its DC
 *    quantiser Q. For every Q from MIN_Q to MAX_Q the concentration of 8·(mean − 128) on
 *    multiples of Q is measured (the length of the mean of e^(2πi·8(mean−128)/Q), 1 when every
 *    block fits); the decoder's rounding of pixels costs up to about a quarter of it, and every
 *    divisor of Q fits as well as Q, so Q is the largest that fits nearly as well (FITS_NEARLY)
 *    as the best, well (FITS) in itself, and better than the quantisers either side of it. A
 *    photo resampled since it was a JPEG, or never one, fits none.
 */

export interface JpegTraces {
  luma: BlockGrid;
  chroma: BlockGrid;
  /** Luma's DC step, in levels of 255: what its block means were rounded to. */
  step: number;
  /** Luma, blue and red difference statistics per block, on their grids. */
  statistics: [BlockStatistics, BlockStatistics, BlockStatistics];
}

const QUIET_STEP = 8;
const STAND_OUT = 2;
/**
 * A decoder rounds a flat block to whole levels, which puts its mean on a multiple of 8/8 of a
 * level whatever the quantiser was: steps up to a level cannot be told from that rounding (and
 * blocking that small does not show). Over 128/8 is no JPEG anyone keeps.
 */
const MIN_Q = 9;
const MAX_Q = 128;
const FITS = 0.6;
const FITS_NEARLY = 0.75;
/** Rows looked at for the grid at most: every k-th row and the one below it (k odd), a fixed cost. */
const SAMPLED_PIXELS = 1 << 17;

export function findJpegTraces(image: RawImage): JpegTraces | null {
  const phases = boundaryPhases(image);
  if (!phases) return null;
  const luma = { size: 8, left: phases.luma[0], top: phases.luma[1] };
  const chroma = { size: 16, left: phases.chroma[0], top: phases.chroma[1] };
  const statistics = blockStatistics(image, luma, chroma);
  const step = dcStep(statistics[0].means);
  return step === null ? null : { luma, chroma, step, statistics };
}

/** Mean small differences across each column (row) boundary phase: luma modulo 8, colour modulo 16. */
function boundaryPhases(image: RawImage): { luma: [number, number]; chroma: [number, number] } | null {
  const { width, height } = image;
  // [axis][phase]: summed differences and their counts.
  const luma = [new Float64Array(8), new Float64Array(8)];
  const lumaCounts = [new Float64Array(8), new Float64Array(8)];
  const chroma = [new Float64Array(16), new Float64Array(16)];
  const rows = yccBuffers(2 * width);
  for (let row = 0; row < height; row += sampledRowStride(width, height, SAMPLED_PIXELS)) {
    // The row and the next, for the differences down.
    const strip = yccStrip(image, row, Math.min(height, row + 2), rows);
    const [y, cb, cr] = strip.planes;
    const below = row + 1 < height;
    for (let x = 0; x < width; x++) {
      if (x + 1 < width) {
        const across = Math.abs(y[x + 1] - y[x]);
        if (across < QUIET_STEP) {
          luma[0][(x + 1) & 7] += across;
          lumaCounts[0][(x + 1) & 7]++;
        }
        const colour = Math.abs(cb[x + 1] - cb[x]) + Math.abs(cr[x + 1] - cr[x]);
        if (colour < QUIET_STEP) chroma[0][(x + 1) & 15] += colour;
      }
      if (below) {
        const down = Math.abs(y[x + width] - y[x]);
        if (down < QUIET_STEP) {
          luma[1][(row + 1) & 7] += down;
          lumaCounts[1][(row + 1) & 7]++;
        }
        const colour = Math.abs(cb[x + width] - cb[x]) + Math.abs(cr[x + width] - cr[x]);
        if (colour < QUIET_STEP) chroma[1][(row + 1) & 15] += colour;
      }
    }
  }
  const found: number[] = [];
  for (const axis of [0, 1]) {
    const means = Array.from(luma[axis], (sum, phase) => sum / Math.max(1, lumaCounts[axis][phase]));
    const best = means.indexOf(Math.max(...means));
    const others = means.filter((_, phase) => phase !== best).sort((a, b) => a - b);
    if (!(means[best] > STAND_OUT * others[others.length >> 1])) return null;
    found.push(best);
  }
  const colourPhase = (axis: number) =>
    chroma[axis][found[axis] + 8] > chroma[axis][found[axis]] ? found[axis] + 8 : found[axis];
  return { luma: [found[0], found[1]], chroma: [colourPhase(0), colourPhase(1)] };
}

/** The DC step in levels (Q/8), or null when the block means sit on no lattice. */
function dcStep(means: Float32Array): number | null {
  if (means.length === 0) return null;
  // 8·(mean − 128) counted in bins of a quarter: the concentration is then summed over the
  // distinct values, a few hundred, rather than over every block.
  const counts = new Map<number, number>();
  for (const mean of means) {
    const bin = Math.round(32 * (mean - 128));
    counts.set(bin, (counts.get(bin) ?? 0) + 1);
  }
  const concentration = new Float64Array(MAX_Q + 1);
  let best = 0;
  for (let q = MIN_Q; q <= MAX_Q; q++) {
    let re = 0;
    let im = 0;
    for (const [bin, count] of counts) {
      const angle = (2 * Math.PI * bin) / (4 * q);
      re += count * Math.cos(angle);
      im += count * Math.sin(angle);
    }
    concentration[q] = Math.hypot(re, im) / means.length;
    best = Math.max(best, concentration[q]);
  }
  // A quantiser near the true one fits nearly as well when the means span few steps, but never better.
  const peak = (q: number) =>
    concentration[q] >= (concentration[q - 1] ?? 0) && concentration[q] >= (concentration[q + 1] ?? 0);
  for (let q = MAX_Q; q >= MIN_Q; q--) {
    if (concentration[q] >= Math.max(FITS, FITS_NEARLY * best) && peak(q)) return q / 8;
  }
  return null;
}
