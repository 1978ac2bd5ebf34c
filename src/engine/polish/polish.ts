import type { RawImage } from '../raw-image';
import { correctedBlocks, type BlockCorrections } from './jpeg-blocks';
import { deblockPlane } from './jpeg-deblock';
import { deringPlane } from './jpeg-dering';
import { findJpegTraces } from './jpeg-grid';
import { wienerFilter, wienerScratch } from './local-wiener';
import { noiseSigmas, type NoiseSigmas } from './noise-level';
import { LUMA, writeStrip, yccBuffers, yccStrip } from './ycc';

/**
 * `polish`: a photo's noise taken out, its edges and texture kept, with a strength measured on
 * the photo itself, so a clean photo is left nearly as it is.
 *
 * 1. Measure: whether the photo was a JPEG, on which grid and with which DC step
 *    (jpeg-grid.ts); the noise left in luma and both colour differences (noise-level.ts).
 * 2. A JPEG is deblocked (jpeg-blocks.ts, jpeg-deblock.ts) and deringed (jpeg-dering.ts), in
 *    luma and in colour.
 * 3. Every plane gets a local Wiener filter (local-wiener.ts) for the noise measured in it, or
 *    for a JPEG at least the rounding noise of its step.
 *
 * The work runs in strips of rows, each with MARGIN rows on both sides that are read but not
 * written, so memory stays a few strips' worth of floats at any size: the furthest any step
 * reaches is half a colour block of ramp (9 rows), then two deringing passes (2) and the
 * Wiener filter's two 5 x 5 box passes (4), 15 in all.
 */

export interface PolishMeasures {
  /** Luma's DC step in levels when the photo was a JPEG, else null. */
  jpegStep: number | null;
  noise: NoiseSigmas;
}

/** Noise under half a level is left alone: the result's own rounding to whole levels is as large. */
const NEGLIGIBLE_SIGMA = 0.5;
const STRIP_ROWS = 256;
const MARGIN = 16;
/**
 * Colour's DC step over luma's: the JPEG standard's example tables, which libjpeg and most
 * encoders scale for every quality, quantise the colour DC by 17 where luma's is 16.
 */
const CHROMA_STEP_RATIO = 17 / 16;

/** The photo measured (step 1): what polish will do to it. */
export function measureForPolish(image: RawImage): PolishMeasures & { corrections: BlockCorrections[] | null } {
  const traces = findJpegTraces(image);
  const corrections = traces
    ? traces.statistics.map((statistics, k) =>
        correctedBlocks(statistics, k === LUMA ? traces.step : traces.step * CHROMA_STEP_RATIO),
      )
    : null;
  return { jpegStep: traces?.step ?? null, noise: noiseSigmas(image), corrections };
}

/** A polished copy of `image` (its alpha, if any, unchanged), or `image` itself when there is nothing to take out. */
export function polish(image: RawImage): RawImage {
  const { noise, corrections } = measureForPolish(image);
  // A JPEG's rounding leaves at least the noise of a uniform error of one step: step² / 12.
  const noiseVariances = noise.map((sigma, k) =>
    Math.max(sigma > NEGLIGIBLE_SIGMA ? sigma * sigma : 0, corrections ? corrections[k].step ** 2 / 12 : 0),
  );
  if (!corrections && noiseVariances.every((variance) => variance === 0)) return image;
  const polished: RawImage = { ...image, data: Buffer.from(image.data) };
  const stripPixels = image.width * Math.min(image.height, STRIP_ROWS + 2 * MARGIN);
  const buffers = yccBuffers(stripPixels);
  const scratch = wienerScratch(stripPixels);
  for (let top = 0; top < image.height; top += STRIP_ROWS) {
    const bottom = Math.min(image.height, top + STRIP_ROWS);
    const strip = yccStrip(image, Math.max(0, top - MARGIN), Math.min(image.height, bottom + MARGIN), buffers);
    if (corrections) {
      strip.planes.forEach((plane, k) => deblockPlane(plane, strip, corrections[k]));
      strip.planes.forEach((plane, k) => deringPlane(plane, strip, corrections[k]));
    }
    strip.planes.forEach((plane, k) => wienerFilter(plane, strip.width, strip.height, noiseVariances[k], scratch));
    writeStrip(strip, polished, top, bottom);
  }
  return polished;
}
