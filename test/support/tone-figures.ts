import { chromaAndHue, ciede2000, meanLab, type Lab } from './colour-difference';
import type { Rectangle } from './tone-scenes';

/**
 * The figures by which exposure and colour corrections are judged, on decoded 8-bit pixels (RGB or
 * RGBA). Luma is Rec. 709 on the encoded values, as elsewhere in the tests.
 */

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

const lumaAt = (image: Pixels, p: number) =>
  0.2126 * image.data[p * image.channels] +
  0.7152 * image.data[p * image.channels + 1] +
  0.0722 * image.data[p * image.channels + 2];

/** Luma of the pixels `inside`, sorted (a typed array sorts numerically, and fast). */
function lumas(image: Pixels, inside: (p: number) => boolean = () => true): Float64Array {
  const values = new Float64Array(image.width * image.height);
  let count = 0;
  for (let p = 0; p < image.width * image.height; p++) if (inside(p)) values[count++] = lumaAt(image, p);
  return values.subarray(0, count).sort();
}

const at = (sorted: Float64Array, fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];

/** Mean luma. */
export function meanLuma(image: Pixels): number {
  let sum = 0;
  for (let p = 0; p < image.width * image.height; p++) sum += lumaAt(image, p);
  return sum / (image.width * image.height);
}

/** Tonal range: luma at 99 % less luma at 1 %, so a few specular or dead pixels do not count. */
export function tonalRange(image: Pixels): number {
  const sorted = lumas(image);
  return at(sorted, 0.99) - at(sorted, 0.01);
}

/** The white level: luma at 99.5 %, the brightest real detail. */
export const whiteLevel = (image: Pixels) => at(lumas(image), 0.995);

/** Mean luma of the background: everything outside the product (its shadow and backdrop). */
export function backgroundLuma(image: Pixels, product: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let p = 0; p < product.length; p++) {
    if (product[p] === 255) continue;
    sum += lumaAt(image, p);
    count++;
  }
  return sum / count;
}

/** Midtone contrast: the interquartile range of luma. */
export function midtoneContrast(image: Pixels): number {
  const sorted = lumas(image);
  return at(sorted, 0.75) - at(sorted, 0.25);
}

/** Mean absolute change of luma between two images of one size. */
export function meanLumaChange(before: Pixels, after: Pixels): number {
  let sum = 0;
  for (let p = 0; p < before.width * before.height; p++) sum += Math.abs(lumaAt(before, p) - lumaAt(after, p));
  return sum / (before.width * before.height);
}

/** Mean absolute change of each channel (R, G and B together) between two images of one size. */
export function meanChannelChange(before: Pixels, after: Pixels): number {
  let sum = 0;
  const pixels = before.width * before.height;
  for (let p = 0; p < pixels; p++) {
    for (let c = 0; c < 3; c++)
      sum += Math.abs(before.data[p * before.channels + c] - after.data[p * after.channels + c]);
  }
  return sum / (3 * pixels);
}

/**
 * Clipping of the product's highlights: the share of its pixels with a channel at 254 or 255 (a
 * flat white area where there was detail), and how many distinct luma levels its brightest 2 %
 * spans (rounded to whole levels): a curve that flattens highlights merges them.
 */
export function productHighlights(image: Pixels, product: Uint8Array): { clipped: number; distinctLevels: number } {
  let clipped = 0;
  let count = 0;
  for (let p = 0; p < product.length; p++) {
    if (product[p] !== 255) continue;
    count++;
    const i = p * image.channels;
    if (Math.max(image.data[i], image.data[i + 1], image.data[i + 2]) >= 254) clipped++;
  }
  const sorted = lumas(image, (p) => product[p] === 255);
  const brightest = sorted.slice(Math.floor(0.98 * sorted.length));
  return { clipped: clipped / count, distinctLevels: new Set(Array.from(brightest, Math.round)).size };
}

/** CIEDE2000 between the card's mean colour and the neutral grey of its own L*. */
export function cardDeltaE(image: Pixels, card: Rectangle): { lab: Lab; deltaE: number } {
  const lab = meanLab(image, card);
  return { lab, deltaE: ciede2000(lab, [lab[0], 0, 0]) };
}

/** The product's mean colour (averaged in linear light): CIELAB, chroma and hue angle. */
export function productColour(image: Pixels, product: Uint8Array): { lab: Lab; chroma: number; hue: number } {
  const lab = meanLab(image, { left: 0, top: 0, width: image.width, height: image.height }, (x, y) => {
    return product[y * image.width + x] === 255;
  });
  return { lab, ...chromaAndHue(lab) };
}

/** Signed difference of two hue angles in degrees, -180..180. */
export const hueDifference = (from: number, to: number) => ((to - from + 540) % 360) - 180;

/** A figure as a table shows it: `digits` decimals. */
export const rounded = (value: number, digits = 1) => Number(value.toFixed(digits));

/**
 * The exposure figures of a photo before and after a correction, rounded for a table: mean luma,
 * midtone contrast, tonal range and white level.
 */
export function exposureFigures(before: Pixels, after: Pixels) {
  return {
    'mean before': rounded(meanLuma(before)),
    'mean after': rounded(meanLuma(after)),
    'midtone contrast before': rounded(midtoneContrast(before)),
    'midtone contrast after': rounded(midtoneContrast(after)),
    'range before': rounded(tonalRange(before)),
    'range after': rounded(tonalRange(after)),
    'white before': rounded(whiteLevel(before)),
    'white after': rounded(whiteLevel(after)),
  };
}

/**
 * What a correction did to a product shot on white, rounded for a table: mean luma, its mean
 * change, and the mean luma of the background (outside the product's mask).
 */
export function whiteBackgroundFigures(before: Pixels, after: Pixels, product: Uint8Array) {
  return {
    'mean before': rounded(meanLuma(before)),
    'mean after': rounded(meanLuma(after)),
    'mean |luma change|': rounded(meanLumaChange(before, after), 2),
    'background before': rounded(backgroundLuma(before, product)),
    'background after': rounded(backgroundLuma(after, product)),
  };
}
