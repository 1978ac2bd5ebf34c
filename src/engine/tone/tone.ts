import { CLEAN_WHITE, exposureCurve, measureExposure, NEAR_WHITE } from './exposure';
import { LEVEL_OF_LINEAR, LINEAR_OF_LEVEL, LINEAR_STEPS, toEncoded, toLinear } from './linear-light';
import type { RawImage } from '../raw-image';
import { whiteBalanceGains } from './white-balance';

/**
 * `light` and `color`, measured on the image itself and applied in one pass over its pixels, in
 * linear light: white balance (a gain per channel, white-balance.ts), then exposure (one gain on
 * all three channels from a tone curve on brightness, exposure.ts). sharp has no percentile
 * measurements and no arbitrary curves, so this is typed-array code; the saturation change of
 * `color` is a colour matrix, which sharp applies with the other filters.
 */

export interface ToneRequest {
  /** Exposure: underexposed photos lifted, washed-out ones pulled down, well-exposed ones left alone. */
  light: boolean;
  /** White balance and a mild saturation correction. */
  color: boolean;
  /** Moves the key of `light` by this fraction of the range: variants differ by it. */
  brightnessOffset: number;
  /** Added to the saturation factor when `color` is on: variants differ by it. */
  saturationOffset: number;
}

/** What applyTone does to each pixel, as tables for its loop. */
export interface ToneMap {
  /**
   * Linear gains (R, G, B) by the pixel's smallest channel, 3 per level: the white balance, fading
   * out for near-white pixels. A white background is clipped, so its colour under the cast is
   * unknown: it stays white rather than turning the complement of the cast.
   */
  gains: Float32Array;
  /** One gain on all three channels by the largest linear channel after white balance, in LINEAR_STEPS; or null. */
  exposure: Float32Array | null;
}

export interface ToneCorrection {
  /** Null when neither white balance nor exposure changes anything. */
  map: ToneMap | null;
  /** Saturation factor around the pixel's own luma (1 keeps it): neutral greys stay neutral. */
  saturation: number;
}

/** Measured on about this many pixels: enough for percentiles, cheap at any image size. */
const SAMPLE_TARGET = 65_536;
/** Gains this close to 1 change no 8-bit level: the photo is already neutral. */
const NEUTRAL = 0.002;
/** Dull photos (mean saturation under 0.4) get up to this much more saturation. */
const SATURATION_BOOST = 0.15;
/** Rec. 709 luma weights, used by the saturation matrix on encoded values. */
export const LUMA: readonly [number, number, number] = [0.2126, 0.7152, 0.0722];

/** Every n-th pixel in both directions, as an RGB image one pixel high; transparent pixels say nothing. */
function sample(image: RawImage): RawImage {
  const step = Math.max(1, Math.floor(Math.sqrt((image.width * image.height) / SAMPLE_TARGET)));
  const data = Buffer.alloc(Math.ceil(image.width / step) * Math.ceil(image.height / step) * 3);
  let count = 0;
  const { channels, width } = image;
  for (let y = 0; y < image.height; y += step) {
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * channels;
      if (channels === 4 && image.data[i + 3] < 128) continue;
      data[count * 3] = image.data[i];
      data[count * 3 + 1] = image.data[i + 1];
      data[count * 3 + 2] = image.data[i + 2];
      count++;
    }
  }
  return { data: data.subarray(0, count * 3), width: count, height: 1, channels: 3 };
}

/** Share of the image's outermost pixels (its one-pixel frame) that are white; transparent ones say nothing. */
function whiteBorderShare(image: RawImage): number {
  const { data, width, height, channels } = image;
  let white = 0;
  let counted = 0;
  const visit = (x: number, y: number) => {
    const i = (y * width + x) * channels;
    if (channels === 4 && data[i + 3] < 128) return;
    counted++;
    if (data[i] >= CLEAN_WHITE && data[i + 1] >= CLEAN_WHITE && data[i + 2] >= CLEAN_WHITE) white++;
  };
  for (let x = 0; x < width; x++) {
    visit(x, 0);
    if (height > 1) visit(x, height - 1);
  }
  for (let y = 1; y < height - 1; y++) {
    visit(0, y);
    if (width > 1) visit(width - 1, y);
  }
  return counted === 0 ? 0 : white / counted;
}

/** 8-bit levels in linear light. */
function linearOf(levels: Uint8Array): Float32Array {
  const linear = new Float32Array(levels.length);
  for (let i = 0; i < levels.length; i++) linear[i] = LINEAR_OF_LEVEL[levels[i]];
  return linear;
}

/** The gains by smallest channel: full up to NEAR_WHITE, none at 255. */
function fadingGains(gains: readonly number[]): Float32Array {
  const table = new Float32Array(256 * 3);
  for (let level = 0; level < 256; level++) {
    const fade = Math.min(1, Math.max(0, (level - NEAR_WHITE) / (255 - NEAR_WHITE)));
    for (let c = 0; c < 3; c++) table[level * 3 + c] = gains[c] + fade * (1 - gains[c]);
  }
  return table;
}

/** The exposure curve as a gain on linear light, by linear brightness. */
function exposureGains(curve: (brightness: number) => number): Float32Array {
  const table = new Float32Array(LINEAR_STEPS + 1);
  table[0] = 1;
  for (let step = 1; step <= LINEAR_STEPS; step++) {
    const linear = step / LINEAR_STEPS;
    table[step] = toLinear(curve(255 * toEncoded(linear)) / 255) / linear;
  }
  return table;
}

/** Mean HSV saturation of encoded samples: how colourful the photo already is. */
function meanSaturation(rgb: Uint8Array, count: number): number {
  let sum = 0;
  let counted = 0;
  for (let i = 0; i < count; i++) {
    const max = Math.max(rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]);
    if (max < 20) continue;
    sum += (max - Math.min(rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2])) / max;
    counted++;
  }
  return counted > 0 ? sum / counted : 0;
}

/** Measures the image and returns the correction; the image is not changed. */
export function analyseTone(image: RawImage, request: ToneRequest): ToneCorrection {
  if (!request.light && !request.color) return { map: null, saturation: 1 };
  const samples = sample(image);
  const count = samples.width;
  const gains = request.color && count > 0 ? whiteBalanceGains(linearOf(samples.data), count) : [1, 1, 1];
  const balancing: ToneMap = { gains: fadingGains(gains), exposure: null };
  // Measured as white balance leaves the photo, so exposure and saturation see the corrected colours.
  applyTone(samples, balancing);

  const levels = request.light ? measureExposure(samples.data, count, whiteBorderShare(image)) : null;
  const curve = levels && exposureCurve(levels, request.brightnessOffset);
  const neutral = gains.every((gain) => Math.abs(gain - 1) < NEUTRAL);
  const map = neutral && !curve ? null : { ...balancing, exposure: curve && exposureGains(curve) };

  const saturation = request.color
    ? 1 +
      SATURATION_BOOST * Math.min(1, Math.max(0, (0.4 - meanSaturation(samples.data, count)) / 0.4)) +
      request.saturationOffset
    : 1;
  return { map, saturation };
}

/**
 * Applies white balance and exposure in place; alpha is left alone. Where white balance or the
 * exposure gain would push the largest channel past white, the gain is cut to just reach it, so
 * the colour keeps its hue rather than clip towards another.
 */
export function applyTone(image: RawImage, map: ToneMap): void {
  const { data, channels } = image;
  const { gains, exposure } = map;
  for (let i = 0; i < data.length; i += channels) {
    const red = data[i];
    const green = data[i + 1];
    const blue = data[i + 2];
    // The gains' row: that of the pixel's smallest channel.
    const row = (red < green ? (red < blue ? red : blue) : green < blue ? green : blue) * 3;
    const r = LINEAR_OF_LEVEL[red] * gains[row];
    const g = LINEAR_OF_LEVEL[green] * gains[row + 1];
    const b = LINEAR_OF_LEVEL[blue] * gains[row + 2];
    const largest = r > g ? (r > b ? r : b) : g > b ? g : b;
    let gain = exposure === null ? 1 : exposure[((largest < 1 ? largest : 1) * LINEAR_STEPS + 0.5) | 0];
    if (largest * gain > 1) gain = 1 / largest;
    // Rounded to the nearest step (all values are positive, so | 0 truncates like Math.floor).
    const scale = gain * LINEAR_STEPS;
    data[i] = LEVEL_OF_LINEAR[(r * scale + 0.5) | 0];
    data[i + 1] = LEVEL_OF_LINEAR[(g * scale + 0.5) | 0];
    data[i + 2] = LEVEL_OF_LINEAR[(b * scale + 0.5) | 0];
  }
}

/** The 3 x 3 matrix that scales chroma by `factor` around each pixel's luma. */
export function saturationMatrix(factor: number): number[][] {
  return [0, 1, 2].map((row) => [0, 1, 2].map((column) => (1 - factor) * LUMA[column] + (row === column ? factor : 0)));
}
