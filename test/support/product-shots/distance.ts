import { subjectBounds } from '../../../src/engine/mask/alpha-mask';
import type { Point } from './props';

/**
 * How far points are from the product's silhouette, from an exact Euclidean distance transform
 * of its mask (Felzenszwalb and Huttenlocher: two passes of lower envelopes of parabolas).
 */
export interface Clearance {
  /** Gap in pixels between the point (x, y) in frame coordinates and the silhouette; 0 on or inside it. */
  gap(x: number, y: number): number;
  inside(x: number, y: number): boolean;
}

/** Squared distances along one line, in place: `f` in, `d` out (Felzenszwalb and Huttenlocher's 1-D pass). */
function envelope(f: Float64Array, d: Float64Array, n: number, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  const meet = (q: number, p: number) => (f[q] + q * q - (f[p] + p * p)) / (2 * (q - p));
  for (let q = 1; q < n; q++) {
    // z[0] is -Infinity, so this stops at k = 0 at the latest.
    let s = meet(q, v[k]);
    while (s <= z[k]) s = meet(q, v[--k]);
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    d[q] = (q - v[k]) * (q - v[k]) + f[v[k]];
  }
}

/** Distance from each pixel's centre to the nearest centre of a mask pixel (mask >= 128). */
export function distanceToMask(mask: Uint8Array, width: number, height: number): Float32Array {
  // Larger than any squared distance in the frame, yet small enough to keep the arithmetic exact.
  const far = (width + height) ** 2;
  const grid = new Float64Array(width * height);
  for (let i = 0; i < grid.length; i++) grid[i] = mask[i] >= 128 ? 0 : far;
  const n = Math.max(width, height);
  const f = new Float64Array(n);
  const d = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) f[y] = grid[y * width + x];
    envelope(f, d, height, v, z);
    for (let y = 0; y < height; y++) grid[y * width + x] = d[y];
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) f[x] = grid[row + x];
    envelope(f, d, width, v, z);
    for (let x = 0; x < width; x++) out[row + x] = Math.sqrt(d[x]);
  }
  return out;
}

/**
 * How far points are from the mask. The distance transform covers only the mask's bounding box
 * widened by `margin` pixels (a third of the frame's cost, or less); outside it the distance to
 * the box stands in, which is never more than the true one, so a prop sliding in by the gap
 * never steps into the product, and a gap measured there is at least `margin`.
 */
export function clearance(mask: Uint8Array, width: number, height: number, margin: number): Clearance {
  const bounds = subjectBounds({ data: mask, width, height });
  if (!bounds) throw new Error('the mask is empty');
  const { left, top } = bounds;
  const right = left + bounds.width - 1;
  const bottom = top + bounds.height - 1;
  const x0 = Math.max(0, left - margin);
  const y0 = Math.max(0, top - margin);
  const w = Math.min(width, right + 1 + margin) - x0;
  const h = Math.min(height, bottom + 1 + margin) - y0;
  const crop = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) crop.set(mask.subarray((y + y0) * width + x0, (y + y0) * width + x0 + w), y * w);
  const distance = distanceToMask(crop, w, h);
  return {
    gap(x, y) {
      // Pixel centres sit at half-integers, in the crop's coordinates here.
      const px = x - 0.5 - x0;
      const py = y - 0.5 - y0;
      if (px < 0 || py < 0 || px > w - 1 || py > h - 1) {
        const dx = Math.max(left - (x - 0.5), 0, x - 0.5 - right);
        const dy = Math.max(top - (y - 0.5), 0, y - 0.5 - bottom);
        return Math.max(0, Math.hypot(dx, dy) - 0.5);
      }
      const cx = Math.min(w - 2, Math.floor(px));
      const cy = Math.min(h - 2, Math.floor(py));
      const tx = px - cx;
      const ty = py - cy;
      const i = cy * w + cx;
      const upper = distance[i] + (distance[i + 1] - distance[i]) * tx;
      const lower = distance[i + w] + (distance[i + w + 1] - distance[i + w]) * tx;
      // Centre-to-centre distance, less the half pixel from a mask pixel's centre to its edge.
      return Math.max(0, upper + (lower - upper) * ty - 0.5);
    },
    inside(x, y) {
      const px = Math.floor(x);
      const py = Math.floor(y);
      return px >= 0 && py >= 0 && px < width && py < height && mask[py * width + px] >= 128;
    },
  };
}

/** The smallest gap between the product and any of `offsets` moved to (x, y). */
export function smallestGap(offsets: readonly Point[], x: number, y: number, field: Clearance): number {
  let smallest = Infinity;
  for (const [dx, dy] of offsets) {
    const g = field.gap(x + dx, y + dy);
    if (g < smallest) smallest = g;
  }
  return smallest;
}
