import type { RawImage } from './raw-image';

/**
 * Automatic exposure, contrast and colour correction, measured on the image itself. sharp has
 * linear and gamma operations but no percentile measurements and no arbitrary tone curve, so
 * the measuring and the curve (one lookup table per channel) are done here on typed arrays.
 */

export interface ToneRequest {
  /** Exposure and contrast: stretch a flat histogram, lift dark midtones. */
  light: boolean;
  /** White balance and a mild saturation correction. */
  color: boolean;
  /** Added to the midtone target (0..1) when `light` is on: variants differ by it. */
  brightnessOffset: number;
  /** Added to the saturation factor when `color` is on: variants differ by it. */
  saturationOffset: number;
}

export interface ToneCorrection {
  /** One lookup table per channel (R, G, B), or null when nothing changes. */
  curves: [Uint8Array, Uint8Array, Uint8Array] | null;
  /** Saturation factor around the pixel's own luma (1 keeps it): neutral greys stay neutral. */
  saturation: number;
}

/** Measured on about this many pixels: enough for percentiles, cheap at any image size. */
const SAMPLE_TARGET = 65_536;
/** Where the darkest and brightest tones are put when the histogram does not reach them. */
const BLACK_TARGET = 3;
const WHITE_TARGET = 252;
/** Tails ignored when measuring the range, so a few specular or dead pixels do not decide it. */
const TAIL = 0.005;
/** Contrast is never multiplied by more than this: a near-uniform image would turn to noise. */
const MAX_STRETCH = 2.5;
/** The median luma that `light` aims at, and the strongest lift it may apply. */
const MIDTONE_TARGET = 0.46;
const MIN_GAMMA_EXPONENT = 0.55;
/** Pixels this chromatic (chroma / luma) or more are colours, not a cast on something grey. */
const FULL_CAST_RATIO = 0.3;
const NO_CAST_RATIO = 0.6;
const WHITE_BALANCE_ROUNDS = 3;
/** A white balance gain outside this range means the estimate is wrong, not the photo. */
const MIN_GAIN = 0.6;
const MAX_GAIN = 1.6;
const SATURATION_BOOST = 0.15;
/** Rec. 709 luma weights, also used by the saturation matrix. */
export const LUMA: readonly [number, number, number] = [0.2126, 0.7152, 0.0722];

interface Samples {
  rgb: Float32Array;
  count: number;
}

/** Every n-th pixel in both directions; transparent and clipped-dark pixels say nothing. */
function sample(image: RawImage): Samples {
  const step = Math.max(1, Math.floor(Math.sqrt((image.width * image.height) / SAMPLE_TARGET)));
  const rgb = new Float32Array(Math.ceil(image.width / step) * Math.ceil(image.height / step) * 3);
  let count = 0;
  const { data, channels, width } = image;
  for (let y = 0; y < image.height; y += step) {
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * channels;
      if (channels === 4 && data[i + 3] < 128) continue;
      rgb[count * 3] = data[i];
      rgb[count * 3 + 1] = data[i + 1];
      rgb[count * 3 + 2] = data[i + 2];
      count++;
    }
  }
  return { rgb, count };
}

const luma = (r: number, g: number, b: number) => LUMA[0] * r + LUMA[1] * g + LUMA[2] * b;

/**
 * Grey-pixel white balance: the least chromatic quarter of the pixels is taken to be grey under
 * the cast, and gains make it neutral. A photo with nothing grey (a red product filling the
 * frame) has no such pixels, and is left alone rather than turned cyan. Several rounds, because
 * a strong cast makes grey pixels look chromatic until it is partly removed.
 */
export function whiteBalanceGains(samples: Samples): [number, number, number] {
  const gains: [number, number, number] = [1, 1, 1];
  let grey = [1, 1, 1];
  const ratios = new Float32Array(samples.count);
  for (let round = 0; round < WHITE_BALANCE_ROUNDS; round++) {
    let usable = 0;
    for (let i = 0; i < samples.count; i++) {
      const r = samples.rgb[i * 3] * gains[0];
      const g = samples.rgb[i * 3 + 1] * gains[1];
      const b = samples.rgb[i * 3 + 2] * gains[2];
      const max = Math.max(r, g, b);
      const y = luma(r, g, b);
      // Near black or clipped pixels carry no reliable colour.
      ratios[i] = y < 20 || max > 250 ? Number.POSITIVE_INFINITY : (max - Math.min(r, g, b)) / y;
      if (Number.isFinite(ratios[i])) usable++;
    }
    if (usable < 16) break;
    const threshold = [...ratios].filter(Number.isFinite).sort((a, b) => a - b)[Math.floor(usable / 4)];
    const sums = [0, 0, 0];
    let selected = 0;
    for (let i = 0; i < samples.count; i++) {
      if (ratios[i] > threshold) continue;
      for (let c = 0; c < 3; c++) sums[c] += samples.rgb[i * 3 + c] * gains[c];
      selected++;
    }
    const means = sums.map((sum) => sum / selected);
    grey = means.map((mean, c) => mean / gains[c]);
    const brightness = luma(means[0], means[1], means[2]);
    const cast = (Math.max(...means) - Math.min(...means)) / brightness;
    const weight = Math.min(1, Math.max(0, (NO_CAST_RATIO - cast) / (NO_CAST_RATIO - FULL_CAST_RATIO)));
    if (weight === 0 || cast < 0.005) break;
    for (let c = 0; c < 3; c++) gains[c] *= 1 + weight * (brightness / means[c] - 1);
  }
  const clamped = gains.map((gain) => Math.min(MAX_GAIN, Math.max(MIN_GAIN, gain)));
  // Keep the brightness of the grey: the gains move colour, not exposure.
  const norm = luma(clamped[0] * grey[0], clamped[1] * grey[1], clamped[2] * grey[2]) / luma(grey[0], grey[1], grey[2]);
  return [clamped[0] / norm, clamped[1] / norm, clamped[2] / norm];
}

/** Value below which `fraction` of the histogram's mass lies. */
function percentile(histogram: Uint32Array, total: number, fraction: number): number {
  const wanted = fraction * total;
  let seen = 0;
  for (let value = 0; value < histogram.length; value++) {
    seen += histogram[value];
    if (seen > wanted) return value;
  }
  return histogram.length - 1;
}

/** A tone curve on 0..255: levels (black and white points), then a midtone gamma. */
export function toneCurve(histogram: Uint32Array, total: number, brightnessOffset: number): (value: number) => number {
  const low = percentile(histogram, total, TAIL);
  const high = Math.max(low + 1, percentile(histogram, total, 1 - TAIL));
  let blackPoint = Math.min(low, BLACK_TARGET);
  let whitePoint = Math.max(high, WHITE_TARGET);
  let stretch = (whitePoint - blackPoint) / (high - low);
  if (stretch > MAX_STRETCH) {
    // Stretch as far as allowed, around the middle of the measured range.
    stretch = MAX_STRETCH;
    const middle = (low + high) / 2;
    blackPoint = middle - (middle - low) * stretch;
    whitePoint = middle + (high - middle) * stretch;
  }
  const levels = (value: number) => Math.min(255, Math.max(0, blackPoint + (value - low) * stretch));
  const median = levels(percentile(histogram, total, 0.5)) / 255;
  const target = Math.min(0.8, Math.max(0.2, MIDTONE_TARGET + brightnessOffset));
  // Only lifts: a bright photo is left as bright as it is.
  const exponent =
    median > 0 && median < target - 0.02 ? Math.max(MIN_GAMMA_EXPONENT, Math.log(target) / Math.log(median)) : 1;
  return (value) => 255 * (levels(value) / 255) ** exponent;
}

/** Mean HSV saturation: how colourful the photo already is. */
function meanSaturation(samples: Samples, gains: readonly number[]): number {
  let sum = 0;
  let counted = 0;
  for (let i = 0; i < samples.count; i++) {
    const r = samples.rgb[i * 3] * gains[0];
    const g = samples.rgb[i * 3 + 1] * gains[1];
    const b = samples.rgb[i * 3 + 2] * gains[2];
    const max = Math.max(r, g, b);
    if (max < 20) continue;
    sum += (max - Math.min(r, g, b)) / max;
    counted++;
  }
  return counted > 0 ? sum / counted : 0;
}

/** Measures the image and returns the correction; the image is not changed. */
export function analyseTone(image: RawImage, request: ToneRequest): ToneCorrection {
  if (!request.light && !request.color) return { curves: null, saturation: 1 };
  const samples = sample(image);
  const gains = request.color && samples.count > 0 ? whiteBalanceGains(samples) : [1, 1, 1];
  let curve = (value: number) => value;
  if (request.light && samples.count > 0) {
    const histogram = new Uint32Array(256);
    for (let i = 0; i < samples.count; i++) {
      const y = luma(
        samples.rgb[i * 3] * gains[0],
        samples.rgb[i * 3 + 1] * gains[1],
        samples.rgb[i * 3 + 2] * gains[2],
      );
      histogram[Math.min(255, Math.round(y))]++;
    }
    curve = toneCurve(histogram, samples.count, request.brightnessOffset);
  }
  const curves = gains.map((gain) => {
    const table = new Uint8Array(256);
    for (let value = 0; value < 256; value++) table[value] = Math.round(curve(Math.min(255, value * gain)));
    return table;
  }) as [Uint8Array, Uint8Array, Uint8Array];
  const identity = curves.every((table) => table.every((value, index) => value === index));
  const saturation = request.color
    ? 1 +
      SATURATION_BOOST * Math.min(1, Math.max(0, (0.4 - meanSaturation(samples, gains)) / 0.4)) +
      request.saturationOffset
    : 1;
  return { curves: identity ? null : curves, saturation };
}

/** Applies per-channel curves in place; alpha is left alone. */
export function applyCurves(image: RawImage, curves: readonly [Uint8Array, Uint8Array, Uint8Array]): void {
  const { data, channels } = image;
  const [red, green, blue] = curves;
  for (let i = 0; i < data.length; i += channels) {
    data[i] = red[data[i]];
    data[i + 1] = green[data[i + 1]];
    data[i + 2] = blue[data[i + 2]];
  }
}

/** The 3 x 3 matrix that scales chroma by `factor` around each pixel's luma. */
export function saturationMatrix(factor: number): number[][] {
  return [0, 1, 2].map((row) => [0, 1, 2].map((column) => (1 - factor) * LUMA[column] + (row === column ? factor : 0)));
}
