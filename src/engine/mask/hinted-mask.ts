import type { ProbabilityMap } from './probability-map';
import type { AlphaMask, PixelBounds } from './alpha-mask';
import { labelComponents } from './connected-components';
import type { SubjectHints, SubjectRegion } from './subject-hints';

/** The region's pixels in an image of `width` x `height`: at least one pixel, inside the image. */
export function regionPixels(region: SubjectRegion, width: number, height: number): PixelBounds {
  const left = Math.min(width - 1, Math.max(0, Math.floor(region.left * width)));
  const top = Math.min(height - 1, Math.max(0, Math.floor(region.top * height)));
  const right = Math.min(width, Math.max(left + 1, Math.ceil(region.right * width)));
  const bottom = Math.min(height, Math.max(top + 1, Math.ceil(region.bottom * height)));
  return { left, top, width: right - left, height: bottom - top };
}

/** Where the product is expected, for the centre priors: the middle of the region, or of the image. */
export interface ExpectedCentre {
  x: number;
  y: number;
  /** The diagonal the prior's spread is a share of: the region's, or the image's. */
  diagonal: number;
}

export function expectedCentre(hints: SubjectHints, width: number, height: number): ExpectedCentre {
  if (!hints.region) return { x: width / 2, y: height / 2, diagonal: Math.hypot(width, height) };
  const box = regionPixels(hints.region, width, height);
  return { x: box.left + box.width / 2, y: box.top + box.height / 2, diagonal: Math.hypot(box.width, box.height) };
}

/** The pixel index under each keep point in an image of `width` x `height`. */
export function keepPointIndices(hints: SubjectHints, width: number, height: number): number[] {
  return hints.keepPoints.map(({ x, y }) => {
    const px = Math.min(width - 1, Math.max(0, Math.floor(x * width)));
    const py = Math.min(height - 1, Math.max(0, Math.floor(y * height)));
    return py * width + px;
  });
}

/** Zeroes `values` (row-major, `width` wide) outside the region, in place. */
export function clearOutsideRegion(
  values: Float32Array | Uint8Array,
  width: number,
  height: number,
  region: SubjectRegion,
): void {
  const box = regionPixels(region, width, height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    if (y < box.top || y >= box.top + box.height) {
      values.fill(0, row, row + width);
      continue;
    }
    values.fill(0, row, row + box.left);
    values.fill(0, row + box.left + box.width, row + width);
  }
}

/**
 * A map with everything outside the region cleared, and the pixels on the region's inner edge
 * where the model's subject went on past it: whatever crosses the region's edge there is, by
 * the hint's meaning, not the product (a prop cut by the box).
 */
export function clippedToRegion(
  map: ProbabilityMap,
  region: SubjectRegion,
  threshold: number,
): { data: Float32Array; crossing: Uint8Array } {
  const { width, height } = map;
  const data = Float32Array.from(map.data);
  clearOutsideRegion(data, width, height, region);
  const crossing = new Uint8Array(width * height);
  const box = regionPixels(region, width, height);
  const right = box.left + box.width - 1;
  const bottom = box.top + box.height - 1;
  const mark = (x: number, y: number, outX: number, outY: number) => {
    if (outX < 0 || outY < 0 || outX >= width || outY >= height) return;
    if (map.data[outY * width + outX] >= threshold && map.data[y * width + x] >= threshold) crossing[y * width + x] = 1;
  };
  for (let y = box.top; y <= bottom; y++) {
    mark(box.left, y, box.left - 1, y);
    mark(right, y, right + 1, y);
  }
  for (let x = box.left; x <= right; x++) {
    mark(x, box.top, x, box.top - 1);
    mark(x, bottom, x, bottom + 1);
  }
  return { data, crossing };
}

/**
 * A finished mask made to keep to the hints, for segmenters that cannot take them into their
 * own decisions (a remote service): nothing outside the region, and with keep points only the
 * parts of the subject under them. A point on no part keeps the mask as it is rather than
 * emptying it: the client's point may be a pixel off the product's edge.
 */
export function maskWithHints(mask: AlphaMask, hints: SubjectHints): AlphaMask {
  const { width, height } = mask;
  const data = Uint8Array.from(mask.data);
  if (hints.region) clearOutsideRegion(data, width, height, hints.region);
  const points = keepPointIndices(hints, width, height);
  if (points.length === 0) return { data, width, height };
  const solid = new Uint8Array(width * height);
  for (let i = 0; i < solid.length; i++) solid[i] = data[i] >= 128 ? 1 : 0;
  const { labels, count } = labelComponents(solid, width, height, 8);
  const kept = new Uint8Array(count + 1);
  for (const index of points) kept[labels[index]] = 1;
  kept[0] = 0;
  if (!kept.some((value) => value === 1)) return { data, width, height };
  // Soft edges outside every kept part go with the parts they belonged to.
  for (let i = 0; i < data.length; i++) if (labels[i] !== 0 && !kept[labels[i]]) data[i] = 0;
  return { data, width, height };
}

/**
 * How unsure a finished mask looks on its own: the share of the subject's pixels (alpha above
 * a tenth) that are neither clearly in nor clearly out. Segmenters that only answer a mask have
 * nothing better to go on; the local model scores from its own probabilities and decisions.
 */
export function softShare(mask: AlphaMask): number {
  let subject = 0;
  let soft = 0;
  for (const value of mask.data) {
    if (value < 26) continue;
    subject++;
    if (value < 230) soft++;
  }
  return subject === 0 ? 1 : Math.min(1, soft / subject);
}
