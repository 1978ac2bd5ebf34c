import { labDistance } from './lab-colour';

/**
 * Splits the pixels of a mask into regions of one colour, by graph-based segmentation
 * (Felzenszwalb & Huttenlocher, 2004): neighbouring pixels are joined cheapest edge first, and
 * two regions merge while the colour step between them is no larger than the variation already
 * inside either, plus `scale / size`. A shaded surface (a gradient across a disc, a cylinder's
 * light) stays one region, while an edge between two materials stops the merge. Written here
 * because no maintained package does it on typed arrays in Node (OpenCV's version lives in a
 * contrib module its JavaScript builds leave out); it is one sort and one union-find pass.
 */

export interface ColourRegions {
  /** Per pixel: -1 outside the mask, else the region's number, 0..count-1. */
  labels: Int32Array;
  count: number;
}

/** Edge weights are colour distances quantised to this step, so the edges sort by counting. */
const WEIGHT_STEP = 0.25;
const WEIGHT_LEVELS = 1024;

export function colourRegions(
  lab: Float32Array,
  inside: Uint8Array,
  width: number,
  height: number,
  options: { scale: number; minSize: number },
): ColourRegions {
  const { from, to, weight, count: edgeCount } = neighbourEdges(lab, inside, width, height);
  const order = countingOrder(weight, edgeCount);
  const n = width * height;
  const parent = new Int32Array(n);
  const size = new Int32Array(n).fill(1);
  const spread = new Float32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const root = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const join = (a: number, b: number, w: number) => {
    if (size[a] < size[b]) [a, b] = [b, a];
    parent[b] = a;
    size[a] += size[b];
    spread[a] = w;
  };
  for (let k = 0; k < edgeCount; k++) {
    const e = order[k];
    const a = root(from[e]);
    const b = root(to[e]);
    if (a === b) continue;
    const w = weight[e] * WEIGHT_STEP;
    if (w <= Math.min(spread[a] + options.scale / size[a], spread[b] + options.scale / size[b])) join(a, b, w);
  }
  // Regions too small to mean anything join their most similar neighbour.
  for (let k = 0; k < edgeCount; k++) {
    const e = order[k];
    const a = root(from[e]);
    const b = root(to[e]);
    if (a !== b && (size[a] < options.minSize || size[b] < options.minSize)) join(a, b, weight[e] * WEIGHT_STEP);
  }
  const labels = new Int32Array(n).fill(-1);
  const numbers = new Int32Array(n).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!inside[i]) continue;
    const r = root(i);
    if (numbers[r] < 0) numbers[r] = count++;
    labels[i] = numbers[r];
  }
  return { labels, count };
}

/** Right, down and both diagonal neighbours inside the mask, weighted by their colour distance. */
function neighbourEdges(lab: Float32Array, inside: Uint8Array, width: number, height: number) {
  const capacity = 4 * width * height;
  const from = new Int32Array(capacity);
  const to = new Int32Array(capacity);
  const weight = new Uint16Array(capacity);
  let count = 0;
  const add = (a: number, b: number) => {
    from[count] = a;
    to[count] = b;
    weight[count] = Math.min(WEIGHT_LEVELS - 1, Math.round(labDistance(lab, a * 3, lab, b * 3) / WEIGHT_STEP));
    count++;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!inside[i]) continue;
      if (x + 1 < width && inside[i + 1]) add(i, i + 1);
      if (y + 1 < height) {
        if (inside[i + width]) add(i, i + width);
        if (x + 1 < width && inside[i + width + 1]) add(i, i + width + 1);
        if (x > 0 && inside[i + width - 1]) add(i, i + width - 1);
      }
    }
  }
  return { from, to, weight, count };
}

/** Edge indices by increasing weight (a counting sort: the weights are small integers). */
function countingOrder(weight: Uint16Array, count: number): Int32Array {
  const start = new Int32Array(WEIGHT_LEVELS + 1);
  for (let e = 0; e < count; e++) start[weight[e] + 1]++;
  for (let w = 0; w < WEIGHT_LEVELS; w++) start[w + 1] += start[w];
  const order = new Int32Array(count);
  for (let e = 0; e < count; e++) order[start[weight[e]]++] = e;
  return order;
}
